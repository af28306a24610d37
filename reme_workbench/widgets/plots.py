"""matplotlib figures of the review views. Each function returns a `Figure` built
without pyplot's global state (so a notebook, a widget and a test can draw side by side)."""

from __future__ import annotations

from matplotlib.figure import Figure

from ..ops import ArchiveOverview, CommunitiesOverview, Drawing

__all__ = ["figure_png", "figure_image", "sweep_figure", "community_sizes_figure", "stability_figure", "community_figure",
           "recency_figure", "BUCKET_COLORS"]

def figure_png(fig: Figure, *, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (what the screens show and the screenshots keep)."""
    from io import BytesIO

    buf = BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def figure_image(fig: Figure):
    """An ipywidgets Image of the figure: shows the same in a kernel, a browser and a test."""
    import ipywidgets as w

    return w.Image(value=figure_png(fig), format="png", layout=w.Layout(max_width="100%"))


BUCKET_COLORS = {"procedure": "#1f77b4", "personal": "#d62728", "wiki": "#2ca02c", "?": "#7f7f7f"}


def community_sizes_figure(overview: CommunitiesOverview) -> Figure:
    fig = Figure(figsize=(7, 2.8), layout="constrained")
    ax = fig.add_subplot()
    ids = [c.id for c in overview.communities]
    ax.bar(ids, [c.size for c in overview.communities], color="#4c72b0")
    ax.set_ylabel("notes")
    ax.set_title(f"{len(ids)} communities, largest first")
    ax.tick_params(axis="x", rotation=90, labelsize=7)
    return fig


def stability_figure(overview: CommunitiesOverview, min_stability: float = 0.7) -> Figure:
    """Each community's stability against the last run, the abstract gate marked; an
    unknown stability (no previous run) is a grey stub labelled '?'."""
    fig = Figure(figsize=(7, 2.8), layout="constrained")
    ax = fig.add_subplot()
    ids = [c.id for c in overview.communities]
    known = [c.stability if c.stability is not None else 0.02 for c in overview.communities]
    colors = ["#bbbbbb" if c.stability is None else ("#55a868" if c.stability >= min_stability
                                                       else "#c44e52") for c in overview.communities]
    ax.bar(ids, known, color=colors)
    for i, c in enumerate(overview.communities):
        if c.stability is None or c.stability < 0.05:  # a bar too low to see says what it is
            ax.text(i, 0.04, "?" if c.stability is None else f"{c.stability:.2f}", ha="center",
                    fontsize=7, color="#555555")
    ax.axhline(min_stability, color="#333333", linestyle="--", linewidth=1,
               label=f"abstract gate ≥ {min_stability:g}")
    ax.legend(loc="upper left", bbox_to_anchor=(0, 1.0), fontsize=7, frameon=True)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("stability (Jaccard)")
    previous = (overview.previous or "no previous run")[:10]
    ax.set_title(f"stability against the last run ({previous})")
    ax.tick_params(axis="x", rotation=90, labelsize=7)
    return fig


def community_figure(drawing: Drawing) -> Figure:
    """One community: notes coloured by bucket, the hub ringed and larger, archived
    notes faded, every link a line."""
    fig = Figure(figsize=(7, 5), layout="constrained")
    ax = fig.add_subplot()
    pos = drawing.positions
    for a, b in drawing.edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        ax.plot([x1, x2], [y1, y2], color="#999999", linewidth=0.8, zorder=1)
    for path, (x, y) in sorted(pos.items()):
        faded = path in drawing.archived
        hub = path == drawing.hub
        ax.scatter([x], [y], s=420 if hub else 160, zorder=2,
                   color=BUCKET_COLORS.get(drawing.buckets.get(path, "?"), "#7f7f7f"),
                   alpha=0.3 if faded else 0.95,
                   edgecolors="#000000" if hub else "none", linewidths=2.5 if hub else 0)
        name = drawing.names.get(path, path)
        ax.annotate(name if len(name) <= 28 else name[:27] + "…", (x, y), fontsize=7,
                    xytext=(4, 4), textcoords="offset points", alpha=0.4 if faded else 1.0)
    for bucket, color in BUCKET_COLORS.items():
        if bucket in drawing.buckets.values():
            ax.scatter([], [], color=color, label=bucket)
    ax.scatter([], [], color="#ffffff", edgecolors="#000000", linewidths=2.5, label="hub")
    if drawing.archived:
        ax.scatter([], [], color="#7f7f7f", alpha=0.3, label="archived")
    ax.legend(loc="best", fontsize=7, frameon=False)
    ax.set_title(f"community {drawing.community}: {len(pos)} notes, {len(drawing.edges)} links")
    ax.set_axis_off()
    return fig


def recency_figure(overview: ArchiveOverview) -> Figure:
    """The histogram of recency scores with the archive cut: the raw scores
    (`review.archive.raw_scores`) when known — the stored ones are clipped at 1, and a
    young vault's would be one bar at 1.0 — else the stored ones."""
    fig = Figure(figsize=(7, 2.8), layout="constrained")
    ax = fig.add_subplot()
    scores = [overview.score(p) for p in overview.scores]
    top = max(1.0, *scores) if scores else 1.0
    step = top / 20
    ax.hist(scores, bins=[i * step for i in range(21)], color="#4c72b0", edgecolor="#ffffff")
    ax.axvline(overview.threshold, color="#c44e52", linestyle="--", linewidth=1.5)
    ax.text(overview.threshold + top / 100, ax.get_ylim()[1] * 0.9,
            f"archive under {overview.threshold:g}", color="#c44e52", fontsize=8)
    ax.set_xlim(0, top)
    ax.set_xlabel("recency score (raw: 1 = changed now, unused, unlinked)" if overview.raw
                  else "recency score (stored clipped to 0–1)")
    ax.set_ylabel("notes")
    ax.set_title(f"{len(scores)} notes scored, {len(overview.archived)} archived")
    return fig


def sweep_figure(rows, x: str, ys: dict[str, str], *, default: float | None = None,
                 title: str = "", counts: dict[str, str] | None = None) -> Figure:
    """A sweep's measures against one parameter: `ys` {metric column: label} on the left
    axis (shares, 0-1), `counts` {column: label} on a second axis, the default marked."""
    rows = sorted((r.to_json() if hasattr(r, "to_json") else r for r in rows), key=lambda r: r[x])
    xs = [r[x] for r in rows]
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for column, label in ys.items():
        ax.plot(xs, [r.get(column) if r.get(column) is not None else float("nan") for r in rows],
                marker="o", label=label)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel(x)
    ax.set_ylabel("share")
    if default is not None:
        ax.axvline(default, color="#333333", linestyle="--", linewidth=1)
        ax.text(default, 1.02, " default", fontsize=8, va="bottom")
    lines, labels = ax.get_legend_handles_labels()
    if counts:
        twin = ax.twinx()
        # counts are grey-ish and dotted, each its own marker, so two of them stay apart
        styles = (("s", ":", "#7f7f7f"), ("^", "-.", "#8c564b"), ("D", "--", "#bcbd22"))
        for i, (column, label) in enumerate(counts.items()):
            marker, dash, colour = styles[i % len(styles)]
            twin.plot(xs, [r.get(column, 0) for r in rows], marker=marker, linestyle=dash,
                      color=colour, label=label)
        twin.set_ylabel("count")
        twin.set_ylim(bottom=0)
        more, more_labels = twin.get_legend_handles_labels()
        lines, labels = lines + more, labels + more_labels
    # under the axes, so no curve hides behind it
    # four columns fit short labels in the width; long ones take two
    columns = 4 if sum(len(label) for label in labels) <= 80 else 2
    fig.legend(lines, labels, fontsize=8, loc="outside lower center", ncols=min(len(lines), columns))
    ax.set_title(title or f"against {x}", pad=14)  # room for the default's label
    return fig
