"""`python -m reme_workbench` is the same as the `reme-workbench` command."""

from .cli import main

main()
