"""The local HTTP API over `reme_workbench.ops` (`reme-workbench serve`): `create_app`
(the routes), `guard` (token, Host and Origin rules, CORS) and `serve` (one server per
vault, its port and token in `.reme/serve.json`). FastAPI and uvicorn are imported here
only, so the rest of the package starts without them."""

from .serve import read_serve_file, serve, serve_file

__all__ = ["serve", "serve_file", "read_serve_file"]
