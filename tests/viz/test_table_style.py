"""Styled tables: the course's look, deterministic ids, the chosen row marked (issue #14)."""

import re

import pandas as pd
from IPython.core.interactiveshell import InteractiveShell

from kschedlab.viz.table_style import styled, use_styled_tables


def _scores():
    return pd.DataFrame({"node": ["node-a", "node-b", "node-c"], "total": [150.0, 187.5, 90.0],
                         "chosen": [False, True, False]}).set_index("node")


def test_the_chosen_row_and_only_it_is_marked():
    html = styled(_scores(), uuid="t").to_html()
    css = html.split("</style>")[0]
    bold = {selector.strip() for selectors, props in re.findall(r"([^{}]+)\{([^}]*)\}", css)
            if "font-weight: bold" in props for selector in selectors.split(",")}
    assert bold == {"#T_t_row1_col0", "#T_t_row1_col1", "#T_t_level0_row1"}
    assert 'id="T_t_level0_row1" class="row_heading level0 row1" >node-b</th>' in html


def test_tables_without_a_chosen_column_are_styled_without_marks():
    html = styled(pd.DataFrame({"a": [1.25, 2.0]}), uuid="u").to_html()
    assert "font-weight: bold" not in html and "1.25" in html and ">2<" in html


def test_a_notebook_gets_the_same_html_every_run():
    shell = InteractiveShell.instance()
    try:
        first = []
        for _ in range(2):
            use_styled_tables(shell)
            formatter = shell.display_formatter.formatters["text/html"]
            first.append((formatter(_scores()), formatter(_scores())))
        assert first[0] == first[1]
        assert 'id="T_ks-1"' in first[0][0] and 'id="T_ks-2"' in first[0][1]
        # the plain text form is pandas' own
        assert shell.display_formatter.formatters["text/plain"](_scores()) == repr(_scores())
    finally:
        shell.display_formatter.formatters["text/html"].pop(pd.DataFrame, None)
        InteractiveShell.clear_instance()


def test_repeated_labels_and_long_tables_fall_back_like_pandas():
    shell = InteractiveShell.instance()
    try:
        use_styled_tables(shell)
        formatter = shell.display_formatter.formatters["text/html"]
        repeated = pd.DataFrame({"a": [1, 2]}, index=["x", "x"])
        assert formatter(repeated) == repeated._repr_html_()
        long = pd.DataFrame({"a": range(500)})
        html = formatter(long)
        assert html.count("<tr") == 1 + 10 and "first 10 of 500 rows</caption>" in html
    finally:
        shell.display_formatter.formatters["text/html"].pop(pd.DataFrame, None)
        InteractiveShell.clear_instance()


def test_text_is_escaped_and_missing_values_are_shown():
    table = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "<b>": ["<script>x</script>", "ok"],
                          "c": [1.5, float("nan")]}, index=["<i>", "y"])
    html = styled(table, uuid="e").to_html()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;" in html and "&lt;i&gt;" in html
    assert "<NA>" not in html and html.count(">–</td>") == 2


def test_static_tables_write_booleans_as_words_and_missing_values_as_a_dash():
    table = pd.DataFrame({"pod": ["a", "b"], "evicted": [True, False], "oom": [None, True],
                          "score": [1.5, None]}).set_index("pod")
    html = styled(table, uuid="w").to_html()
    cells = re.findall(r'class="data row\d col\d" >([^<]*)</td>', html)
    assert cells == ["yes", "–", "1.5", "no", "yes", "–"]
    shell = InteractiveShell.instance()
    try:
        use_styled_tables(shell)
        repeated = pd.DataFrame({"fits": [True, False]}, index=["x", "x"])
        html = shell.display_formatter.formatters["text/html"](repeated)
        assert "<td>yes</td>" in html and "<td>no</td>" in html and "True" not in html
    finally:
        shell.display_formatter.formatters["text/html"].pop(pd.DataFrame, None)
        InteractiveShell.clear_instance()
