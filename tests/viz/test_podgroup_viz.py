"""The pod-attempts figure keeps its title inside the figure (issue #27: it overlapped the table above)."""

from kschedlab.viz import podgroup as pgviz
from kschedlab.viz.placement import placement_what_if


def test_pod_attempts_title_is_one_line_with_a_subtitle_anchored_in_the_figure():
    out = placement_what_if([("a1", "rack-a", 4), ("b1", "rack-b", 2)], min_count=2, workers=3)
    title = pgviz.pod_attempts(out.result).layout.title
    # a multi-line title anchored at the top is drawn above the figure by plotly: one line, a subtitle
    assert "<br>" not in title.text and title.text == "Pod attempts per candidate placement"
    assert title.subtitle.text == "colour: PlacementFeasible after the pod"
    assert (title.yref, title.yanchor) == ("container", "top") and 0 < title.y <= 1
