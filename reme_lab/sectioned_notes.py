"""Long notes in `##` sections, written the way people write them (issue #31; docs/spec.md
§7.8; the measurements in docs/experiments.md, "Sections of real notes").

Not generated from the generator's sentence forms: each is a note a person keeps in an
Obsidian vault, in one voice, so unrelated sections still share the writer's words
("we", "set up", "every week") — what made the issue's planted note score 0.27 alike.

* `MIXED` — notes whose sections are about different things, a person would split them:
  the issue's backups / CSS theming / hiring note, a "misc" note of a trip, a tax
  return and a bike repair, and a folder note of plugin categories under one `# H1`;
* `ONE_TOPIC` — long notes of one topic in sections, a person would keep them whole: a
  sourdough method, a Postgres vacuum note, a move-to-Berlin checklist whose sections
  are its stages.

`NOTES` is {name: (body, a person would split it)}.
"""

from __future__ import annotations

__all__ = ["MIXED", "ONE_TOPIC", "NOTES", "folder_note"]

HOMELAB = """## Backups

Every night at 02:00 restic backs up the NAS to the Backblaze B2 bucket `homelab-nas`.
I keep 7 daily, 4 weekly and 12 monthly snapshots (`restic forget --keep-daily 7
--keep-weekly 4 --keep-monthly 12 --prune`). Once a month I restore a random folder into
/tmp and diff it against the live copy, because a backup nobody restored is a hope, not
a backup. The repository password lives in the password manager under "restic B2".
If the job fails, healthchecks.io mails me after 26 hours without a ping.

## CSS theming

The vault uses the Minimal theme with a snippet in `.obsidian/snippets/wide.css`: it
widens readable line length to 52rem, sets the heading font to Inter and colours
callouts of type `[!decision]` teal. Style Settings overrides the accent colour to
#3a7ca5. After a theme update I check that the snippet still applies; Minimal renamed
its variables once and every heading went back to the default serif until I changed
`--h1-font` to `--font-h1`.

## Hiring

We are hiring a second support engineer for the Lisbon office. The loop is a 30-minute
call with me, a written exercise (answer three real tickets, two hours, paid), then a
panel with Marta and Joao. We look for clear writing and patience more than product
knowledge; the product we can teach. Salary band is agreed with finance; the offer goes
out within a week of the panel, and every candidate hears back, yes or no.
"""

MISC = """## Porto trip

We land in Porto on Friday at 10:40 and take the metro (line E) to Trindade. The flat
is in Rua das Flores, check-in from 15:00, the code comes by text the day before. On
Saturday we walk to the Livraria Lello early, before the queue, then cross the Dom Luis
bridge to the port cellars in Gaia; Taylor's tour is booked for 14:30. Sunday is the
tram 1 to Foz and lunch at the fish place by the lighthouse.

## Tax return

The tax return is due by 30 June. Deductible this year: the home office share of rent
(12 % of the flat), the new laptop (depreciated over three years), the accountant's fee
and the health insurance. The pension statement arrives in March; the bank sends the
capital gains summary in February. I file through the online portal and keep the PDFs
in Documents/Tax/2025 for ten years.

## Bike repair

The rear derailleur skips on the three smallest cogs. Cause: a stretched chain (the
checker shows 0.75) and a bent hanger. Ordered a KMC X11 chain and a replacement hanger
for the Canyon frame. Fit the chain with a quick link, straighten or swap the hanger,
then set the limit screws and index the gears with the barrel adjuster, a quarter turn
at a time, until the shifts are clean under load on the stand.
"""

SOURDOUGH = """## Starter

The starter is fed every morning with 50 g of flour (half rye, half white) and 50 g of
water at 26 degrees, and it doubles in about five hours. Before a bake I feed it twice,
twelve hours apart, so it is at its peak when I mix: bubbly, domed, smelling of yoghurt
rather than of acetone. A spoon of it floats in water when it is ready.

## Mixing and bulk

Autolyse 450 g of white flour and 50 g of whole wheat with 350 g of water for an hour,
then add 100 g of starter and 10 g of salt with a splash of water and squeeze it in.
Bulk fermentation takes four to five hours at 25 degrees, with four sets of stretch and
folds in the first two hours; the dough is ready when it has grown by half, jiggles,
and shows bubbles on the sides of the tub.

## Shaping and baking

Pre-shape into a loose round, rest twenty minutes, then shape a tight batard and put it
seam-up in a floured banneton. Retard overnight in the fridge. Bake straight from the
fridge in a preheated Dutch oven at 250 degrees: twenty minutes with the lid, then
twenty-five without at 230, until the crust is deep brown and the loaf sounds hollow.
"""

VACUUM = """## What vacuum does

Postgres never overwrites a row: an update writes a new tuple and leaves the old one
dead until vacuum reclaims it. Vacuum also freezes old transaction ids so the 32-bit
xid counter can wrap around safely, and updates the visibility map that index-only
scans rely on. Without it a busy table bloats and, in the worst case, the database stops
accepting writes to protect itself from wraparound.

## Autovacuum settings

Autovacuum starts on a table when dead tuples pass `autovacuum_vacuum_threshold` plus
`autovacuum_vacuum_scale_factor` times its rows (50 plus 20 % by default). For the big
`events` table 20 % is far too late, so it has `autovacuum_vacuum_scale_factor = 0.01`
and a cost limit of 2000. `autovacuum_max_workers` is 5 on the primary; more workers
share the same cost budget, so raising the cost limit matters more than the count.

## Watching it

`pg_stat_user_tables` shows `n_dead_tup`, `last_autovacuum` and how many times each
table was vacuumed. A long-running transaction holds back the xmin horizon and stops
vacuum from removing anything newer, so the dashboard also shows the oldest open
transaction from `pg_stat_activity`. An alert fires when any table's dead tuples pass
10 % of its live ones for an hour.
"""

MOVING = """## Three months before

Give notice on the flat in Lisbon (three months by contract, by registered letter) and
tell the employer the start date in Berlin. Ask the current landlord when the deposit
comes back and what the handover inspection checks. Book the removal company for the
last week: three quotes, compare the insurance they include for the piano.

## The week of the move

Pack by room and label every box with the room in Berlin it goes to. Cancel electricity,
internet and water in Lisbon with the final meter readings photographed. Keep passports,
the rental contract for Berlin and the employment contract in the hand luggage, not in
the van. Hand the keys over at the inspection and get the signed report.

## First weeks in Berlin

Register the address at the Bürgeramt within two weeks of moving in (book the
appointment online as soon as the contract is signed), then the tax id arrives by
post. Open a bank account, sign up for health insurance through the employer, and
transfer the electricity contract to our names with the meter reading from day one.
"""

# a folder note of a plugin wiki: per category, plugins named from the category's own
# things and verbs, one line each, as the wiki's category pages list them
_CATEGORIES = {
    "Diagrams": (["Mermaid", "PlantUML", "Graphviz", "Excalidraw", "draw.io", "TikZ", "Kroki",
                  "D2", "Vega", "ECharts"],
                 ["flowcharts", "sequence diagrams", "mind maps", "sketches", "class diagrams",
                  "network graphs", "timelines", "org charts"],
                 ["Render", "Draw", "Export", "Zoom into", "Embed", "Colour"]),
    "Tables": (["Advanced", "Sheets", "CSV", "Grid", "Pivot", "Sortable", "Matrix", "Ledger",
                "Loom", "Formula"],
               ["Markdown tables", "spreadsheet cells", "CSV files", "table rows", "columns",
                "merged cells", "pivot summaries", "formulas"],
               ["Format", "Sort", "Filter", "Sum", "Align", "Import"]),
    "Tasks": (["Tasks", "Kanban", "Planner", "Reminder", "Todoist", "Pomodoro", "Habit",
               "Rollover", "Agenda", "Gantt"],
              ["due dates", "recurring todos", "kanban boards", "daily plans", "reminders",
               "habit streaks", "project deadlines", "checklists"],
              ["Track", "Schedule", "Roll over", "Snooze", "Tick off", "Prioritise"]),
    "Writing": (["Longform", "Typewriter", "LanguageTool", "Linter", "Footnotes", "Outliner",
                 "Thesaurus", "Cite", "Novel", "Proofread"],
                ["manuscripts", "chapters", "footnotes", "citations", "word counts",
                 "grammar mistakes", "synonyms", "scenes"],
                ["Draft", "Proofread", "Count", "Cite", "Rephrase", "Outline"]),
    "Sync and publishing": (["Git", "Remotely", "LiveSync", "Garden", "Quartz", "Ghost",
                             "WordPress", "Dropbox", "S3", "WebDAV"],
                            ["the vault to a remote", "a static website", "blog posts",
                             "encrypted backups", "commits", "shared links", "an S3 bucket",
                             "a WebDAV server"],
                            ["Push", "Pull", "Publish", "Back up", "Mirror", "Deploy"]),
}


def folder_note() -> str:
    """The folder note of a plugin wiki's Plugins folder: one `# Plugins` title, an intro,
    a `##` section per category listing its plugins, one line each (what the wiki's
    category pages say of them), over 2,000 tokens."""
    parts = ["# Plugins", "",
             "This folder holds one page per community plugin, grouped by what they do.", ""]
    for category, (names, things, verbs) in _CATEGORIES.items():
        parts += [f"## {category}", ""]
        for k in range(40):
            name = f"{names[k % len(names)]} {verbs[k // len(names) % len(verbs)]}"
            thing, other = things[k % len(things)], things[(k * 3 + 1) % len(things)]
            verb = verbs[(k + k // len(names)) % len(verbs)]
            slug = name.lower().replace(" ", "-").replace(".", "")
            parts.append(f"- [[{slug}|{name}]] — {verb} {thing} and {other}.")
        parts.append("")
    return "\n".join(parts)


MIXED = {"homelab: backups / CSS theming / hiring": HOMELAB,
         "misc: Porto trip / tax return / bike repair": MISC,
         "folder note: plugin categories under # Plugins": folder_note()}
ONE_TOPIC = {"sourdough method": SOURDOUGH, "Postgres vacuum": VACUUM,
             "moving to Berlin": MOVING}
NOTES = {**{k: (v, True) for k, v in MIXED.items()},
         **{k: (v, False) for k, v in ONE_TOPIC.items()}}
