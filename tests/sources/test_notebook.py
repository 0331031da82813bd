"""The notebook adapter: cells <-> one virtual module, masking of IPython syntax, exact write-back."""

from __future__ import annotations

import ast
import difflib
import json
from pathlib import Path

import libcst
import nbformat
import pytest

from gradlint.diagnostics import Span
from gradlint.sources import SourceError, load_document
from gradlint.sources.notebook import NotebookDocument

DATA = Path(__file__).parent / "data"
COLAB = "colab_finetune.ipynb"  # 2-space indent, Colab key order, no ids, no final newline
JUPYTER = "jupyter_training.ipynb"  # 1-space indent, sorted keys, cell ids, nbformat 4.5
SCRIPT = "script_escaped_crlf.ipynb"  # 4-space indent, \uXXXX escapes, CRLF line endings
ALL = [COLAB, JUPYTER, SCRIPT]


def load(name: str) -> tuple[bytes, NotebookDocument]:
    data = (DATA / name).read_bytes()
    doc = load_document(name, data)
    assert isinstance(doc, NotebookDocument)
    return data, doc


def vline(doc: NotebookDocument, needle: str) -> int:
    """The 1-based virtual line that contains `needle` (exactly one must)."""
    hits = [n for n, line in enumerate(doc.text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def edit(text: str, line: int, *, replace: str | None = None, insert: list[str] = (), delete: bool = False) -> str:
    """Change virtual line `line` (1-based): replace it, delete it, or insert lines before it."""
    lines = text.splitlines(keepends=True)
    index = line - 1
    if replace is not None:
        lines[index] = replace + "\n"
    elif delete:
        del lines[index]
    lines[index:index] = [item + "\n" for item in insert]
    return "".join(lines)


def cell_source(nb: dict, number: int) -> str:
    source = nb["cells"][number - 1]["source"]
    return source if isinstance(source, str) else "".join(source)


def assert_only_cells_changed(old: bytes, new: bytes, cells: dict[int, str]) -> None:
    """`new` differs from `old` only in the source lines of `cells` (number -> new source)."""
    old_nb, new_nb = json.loads(old), json.loads(new)
    assert set(new_nb) == set(old_nb)
    assert list(new_nb) == list(old_nb)  # key order kept
    for key in old_nb:
        if key != "cells":
            assert new_nb[key] == old_nb[key]
    assert len(new_nb["cells"]) == len(old_nb["cells"])
    for number, (a, b) in enumerate(zip(old_nb["cells"], new_nb["cells"]), 1):
        assert list(a) == list(b)
        if number in cells:
            assert cell_source(new_nb, number) == cells[number]
            assert {k: v for k, v in a.items() if k != "source"} == {k: v for k, v in b.items() if k != "source"}
        else:
            assert a == b
    # Line by line: every file line that changed is a JSON string of a changed cell's source.
    old_strings = {line for n in cells for line in _lines(cell_source(old_nb, n))}
    new_strings = {line for n in cells for line in _lines(cells[n])}
    old_lines = old.decode("utf-8").splitlines()
    new_lines = new.decode("utf-8").splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for line in old_lines[i1:i2]:
            assert _json_line(line) in old_strings, line
        for line in new_lines[j1:j2]:
            assert _json_line(line) in new_strings, line
    nbformat.validate(nbformat.reads(new.decode("utf-8"), as_version=4))


def _lines(source: str) -> list[str]:
    return source.splitlines(keepends=True) + [source]


def _json_line(line: str) -> str:
    """The string a line of a source array (or a `"source": "..."` line) holds."""
    line = line.strip().rstrip(",")
    return json.loads(line[len('"source": '):] if line.startswith('"source": ') else line)


# --------------------------------------------------------------------------------------------
# The virtual module


@pytest.mark.parametrize("name", ALL)
def test_virtual_module_parses(name):
    _, doc = load(name)
    ast.parse(doc.text)
    libcst.parse_module(doc.text)


@pytest.mark.parametrize("name", ALL)
def test_render_of_unchanged_text_is_the_original_bytes(name):
    data, doc = load(name)
    assert doc.render(doc.text) == data
    assert doc.diff(doc.text) == ""
    assert doc.edits(doc.text) == []


def test_jupyter_cells_form_one_module_with_a_line_map():
    _, doc = load(JUPYTER)
    tree = ast.parse(doc.text)
    # The loop in cell 7 and the optimizer / scaler of cell 3 are in one module.
    assigned = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}
    assert {"optimizer", "scaler", "model", "loader", "accum_steps"} <= assigned
    assert any(isinstance(node, ast.For) for node in tree.body)

    line = vline(doc, "optimizer = torch.optim.AdamW(")
    assert doc.locate(Span(line, 0, line, 9)) == (3, Span(3, 0, 3, 9))

    line = vline(doc, "scaler.scale(loss).backward()")
    cell, span = doc.locate(Span(line, 8, line, 37))
    assert (cell, span) == (7, Span(9, 8, 9, 37))
    assert doc.source_line(line) == "        scaler.scale(loss).backward()"

    # A statement found by ast maps back to its cell line.
    loop = next(node for node in tree.body if isinstance(node, ast.For))
    cell, span = doc.locate(Span(loop.lineno, loop.col_offset, loop.end_lineno, loop.end_col_offset))
    assert cell == 7 and span.line == 3 and span.end_line == 17 and span.column == 0
    assert doc.source_line(loop.lineno) == "for epoch in range(3):"


def test_colab_cell_magic_cell_is_analysed_and_mapped():
    _, doc = load(COLAB)
    line = vline(doc, "loss.backward()")
    assert doc.locate(Span(line, 8, line, 23)) == (7, Span(8, 8, 8, 23))
    assert doc.source_line(line - 7) == "%%time"
    tree = ast.parse(doc.text)
    assert any(isinstance(node, ast.For) and node.lineno == line - 5 for node in tree.body)


def test_magics_are_masked_and_shown_as_written():
    _, doc = load(COLAB)
    virtual = doc.text.splitlines()
    for needle in ("!pip install -q", "!nvidia-smi", "%%time", "files = !ls /content", "!du -sh"):
        line = vline(doc, needle)
        assert virtual[line - 1].startswith("pass  # "), virtual[line - 1]
        assert doc.source_line(line).lstrip().startswith(needle.split()[0][:6])
    _, doc = load(JUPYTER)
    virtual = doc.text.splitlines()
    for needle in ("%matplotlib inline", "!nvidia-smi -L", "model?"):
        line = vline(doc, needle)
        assert virtual[line - 1] == "pass  # " + needle
        assert doc.source_line(line) == needle


def test_time_magic_keeps_its_statement_analysable():
    _, doc = load(JUPYTER)
    line = vline(doc, "model(X[:16].to(device))")
    assert doc.text.splitlines()[line - 1] == "model(X[:16].to(device))"
    assert doc.source_line(line) == "%timeit model(X[:16].to(device))"
    # Columns shift back by the width of "%timeit ".
    assert doc.locate(Span(line, 0, line, 5)) == (8, Span(2, 8, 2, 13))


def test_markdown_and_output_text_never_reach_the_module():
    _, doc = load(JUPYTER)
    assert "Résultats" not in doc.text
    assert "epoch 0: loss" not in doc.text


# --------------------------------------------------------------------------------------------
# Writing a fixed module back


def test_jupyter_fix_in_the_loop_cell_changes_only_that_cell():
    data, doc = load(JUPYTER)
    text = doc.text
    text = edit(text, vline(doc, "scaler.scale(loss).backward()"), replace="        scaler.scale(loss / accum_steps).backward()")
    text = edit(text, vline(doc, "torch.nn.utils.clip_grad_norm_"), insert=["            scaler.unscale_(optimizer)"])
    text = edit(text, vline(doc, "losses = []"), delete=True)
    ast.parse(text)
    new = doc.render(text)
    expected = cell_source(json.loads(data), 7)
    expected = expected.replace("scaler.scale(loss).backward()", "scaler.scale(loss / accum_steps).backward()")
    expected = expected.replace(
        "            torch.nn.utils", "            scaler.unscale_(optimizer)\n            torch.nn.utils"
    )
    expected = expected.replace("losses = []\n", "")
    assert_only_cells_changed(data, new, {7: expected})
    # The file keeps its own format: 1-space indent, sorted keys, final newline, raw non-ASCII.
    assert new.endswith(b"}\n")
    assert "Résultats".encode() in new and b'\n    "            scaler.unscale_(optimizer)\\n",\n' in new
    assert new == nbformat.writes(nbformat.reads(new.decode(), as_version=4)).encode() + b"\n"


def test_colab_fix_keeps_two_space_indent_and_no_final_newline():
    data, doc = load(COLAB)
    text = doc.text
    text = edit(text, vline(doc, "    loss.backward()"), replace="        (loss / accumulation_steps).backward()")
    text = edit(text, vline(doc, "            scheduler.step()"), insert=["            # one update per window"])
    text = edit(text, vline(doc, "model.train()"), delete=True)
    new = doc.render(text)
    expected = cell_source(json.loads(data), 7)
    expected = expected.replace("        loss.backward()", "        (loss / accumulation_steps).backward()")
    expected = expected.replace("            scheduler.step()", "            # one update per window\n            scheduler.step()")
    expected = expected.replace("model.train()\n", "")
    assert_only_cells_changed(data, new, {7: expected})
    assert new.endswith(b"]\n    }\n  ]\n}") and not new.endswith(b"\n")
    assert b'\n        "            # one update per window\\n",\n' in new
    assert "🚀".encode() in new and b"\\ud83d" not in new


def test_script_notebook_keeps_escapes_and_crlf():
    data, doc = load(SCRIPT)
    last = vline(doc, "    optimizer.step()")
    text = edit(doc.text + "    optimizer.zero_grad()  # étape suivante\n", last, replace="    optimizer.step()")
    new = doc.render(text)
    expected = cell_source(json.loads(data), 3) + "\n    optimizer.zero_grad()  # étape suivante"
    assert_only_cells_changed(data, new, {3: expected})
    assert b"\\u00e9tape suivante" in new and new.isascii()
    assert b"\r\n" in new and b"\n" not in new.replace(b"\r\n", b"")
    assert b"# p\\u00e9nalit\\u00e9" in new  # an unchanged line keeps its JSON text


@pytest.mark.parametrize("name", ALL)
def test_change_insert_and_delete_one_line_in_one_cell(name):
    data, doc = load(name)
    tree = ast.parse(doc.text)
    loop = next(node for node in tree.body if isinstance(node, ast.For))
    cell, _ = doc.locate(Span(loop.lineno, 0, loop.lineno, 0))
    backward = vline(doc, "backward()")
    text = edit(doc.text, backward, insert=["    # gradlint was here"])
    text = edit(text, backward + 1, replace=doc.text.splitlines()[backward - 1] + "  # fixed")
    text = edit(text, loop.lineno + 1, delete=True)
    new = doc.render(text)
    expected_lines = cell_source(json.loads(data), cell).splitlines(keepends=True)
    start = doc.locate(Span(loop.lineno, 0, loop.lineno, 0))[1].line - 1
    back = doc.locate(Span(backward, 0, backward, 0))[1].line - 1
    assert doc.source_line(backward).endswith("backward()")
    expected_lines[back] = expected_lines[back].replace("backward()", "backward()  # fixed")
    expected_lines.insert(back, "    # gradlint was here\n")
    del expected_lines[start + 1]
    assert_only_cells_changed(data, new, {cell: "".join(expected_lines)})
    assert new.endswith(b"\n") == data.endswith(b"\n")


def test_import_added_at_the_top_goes_into_the_first_code_cell():
    data, doc = load(JUPYTER)
    new = doc.render("import contextlib\n" + doc.text)
    assert_only_cells_changed(data, new, {2: "import contextlib\n" + cell_source(json.loads(data), 2)})
    data, doc = load(COLAB)
    new = doc.render("import contextlib\n" + doc.text)
    assert_only_cells_changed(data, new, {2: "import contextlib\n" + cell_source(json.loads(data), 2)})


def test_lines_added_at_a_cell_boundary_belong_to_the_cell_before():
    data, doc = load(JUPYTER)
    line = vline(doc, "criterion = nn.CrossEntropyLoss()")  # last line of cell 3
    text = edit(doc.text, line + 1, insert=["scaler = torch.amp.GradScaler(\"cuda\")"])
    new = doc.render(text)
    expected = cell_source(json.loads(data), 3) + "\nscaler = torch.amp.GradScaler(\"cuda\")"
    assert_only_cells_changed(data, new, {3: expected})


def test_fixes_in_two_cells_change_both_and_nothing_else():
    data, doc = load(JUPYTER)
    text = edit(doc.text, vline(doc, "scaler = torch.cuda.amp.GradScaler()"), replace="scaler = torch.amp.GradScaler(\"cuda\")")
    text = edit(text, vline(doc, "            optimizer.zero_grad()"), replace="            optimizer.zero_grad(set_to_none=True)")
    new = doc.render(text)
    old = json.loads(data)
    assert_only_cells_changed(
        data,
        new,
        {
            3: cell_source(old, 3).replace("torch.cuda.amp.GradScaler()", "torch.amp.GradScaler(\"cuda\")"),
            7: cell_source(old, 7).replace("zero_grad()", "zero_grad(set_to_none=True)"),
        },
    )
    diff = doc.diff(text)
    assert "--- a/jupyter_training.ipynb (cell 3)\n+++ b/jupyter_training.ipynb (cell 3)\n" in diff
    assert "--- a/jupyter_training.ipynb (cell 7)\n" in diff
    lines = diff.splitlines()
    assert len([x for x in lines if x.startswith("-") and not x.startswith("---")]) == 2
    assert len([x for x in lines if x.startswith("+") and not x.startswith("+++")]) == 2
    assert "-scaler = torch.cuda.amp.GradScaler()\n+scaler = torch.amp.GradScaler(\"cuda\")\n" in diff
    edits = doc.edits(text)
    assert [(e.cell, e.span.line) for e in edits] == [(3, 4), (7, 14)]
    assert edits[1].text == "            optimizer.zero_grad(set_to_none=True)\n"


def test_a_block_containing_masked_lines_can_be_edited_around_them():
    data, doc = load(SCRIPT)
    nb = json.loads(data)
    nb["cells"][2]["source"] = ["for x in torch.randn(8, 4):\n", "    !echo step\n", "    loss = model(x).sum()\n", "    loss.backward()"]
    data = json.dumps(nb, indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    text = edit(doc.text, vline(doc, "loss.backward()"), replace="    loss.backward()\n    optimizer.step()")
    new = doc.render(text)
    assert cell_source(json.loads(new), 3) == "for x in torch.randn(8, 4):\n    !echo step\n    loss = model(x).sum()\n    loss.backward()\n    optimizer.step()"


# --------------------------------------------------------------------------------------------
# Fixes that may not be written


def test_a_fix_that_changes_a_masked_line_is_refused():
    _, doc = load(JUPYTER)
    line = vline(doc, "%matplotlib inline")
    with pytest.raises(SourceError, match="IPython line 6 of cell 2"):
        doc.render(edit(doc.text, line, replace="pass  # %matplotlib notebook"))
    with pytest.raises(SourceError, match="IPython"):
        doc.render(edit(doc.text, line, delete=True))
    with pytest.raises(SourceError, match="IPython line 2 of cell 8"):
        doc.render(edit(doc.text, vline(doc, "model(X[:16]"), replace="model(X[:32].to(device))"))


def test_reindenting_a_masked_line_is_refused():
    data = json.dumps(
        notebook([code(["import torch\n", "!nvidia-smi\n", "loss.backward()"])]), indent=1
    ).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    wrapped = "import torch\nwith ctx:\n    pass  # !nvidia-smi\n    loss.backward()\n"
    ast.parse(wrapped)
    with pytest.raises(SourceError, match="IPython line 2 of cell 1"):
        doc.render(wrapped)


def test_a_fix_moving_code_to_another_cell_is_refused():
    _, doc = load(JUPYTER)
    text = edit(doc.text, vline(doc, "criterion = nn.CrossEntropyLoss()"), delete=True)
    text = edit(text, vline(doc, "losses = []"), insert=["criterion = nn.CrossEntropyLoss()"])
    with pytest.raises(SourceError, match="moves code from cell 3 to cell 7"):
        doc.render(text)


def test_a_fix_spanning_two_cells_is_refused():
    _, doc = load(JUPYTER)
    last = vline(doc, "criterion = nn.CrossEntropyLoss()")  # end of cell 3; cell 5 follows
    lines = doc.text.splitlines(keepends=True)
    lines[last - 1 : last + 1] = ["criterion = make_criterion(\n", "    model,\n", ")\n"]
    with pytest.raises(SourceError, match="spans cells 3, 5"):
        doc.render("".join(lines))


# --------------------------------------------------------------------------------------------
# Masking rules


def notebook(cells: list[dict], language: str | None = "python", **extra) -> dict:
    metadata = {}
    if language is not None:
        metadata["kernelspec"] = {"display_name": language, "language": language, "name": language}
        metadata["language_info"] = {"name": language}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5, **extra}


def code(source, **extra) -> dict:
    cell = {"cell_type": "code", "execution_count": None, "id": f"c{abs(hash(str(source))) % 10**8}", "metadata": {}, "outputs": [], "source": source}
    cell.update(extra)
    return cell


def markdown(source) -> dict:
    return {"cell_type": "markdown", "id": f"m{abs(hash(str(source))) % 10**8}", "metadata": {}, "source": source}


def virtual_of(*lines: str) -> list[str]:
    doc = NotebookDocument.from_bytes("nb.ipynb", json.dumps(notebook([code("\n".join(lines))])).encode())
    ast.parse(doc.text)
    assert doc.render(doc.text) == json.dumps(notebook([code("\n".join(lines))])).encode()
    return doc.text.splitlines()


@pytest.mark.parametrize(
    "line",
    [
        "%matplotlib inline",
        "%load_ext autoreload",
        "%%time",  # a cell magic that is not on the first line is a line magic
        "!pip install -q torch",
        "!!ls",
        "files = !ls",
        "a, b = %sx ls",
        "self.out = !nvidia-smi",
        "?model",
        "??model",
        "model?",
        "torch.optim.AdamW??",
        "model?  # a comment",
        "pip install -q transformers",
        "conda install -y pytorch",
        "cd ..",
        "cd -",
        "cd ./data",
        "load_ext tensorboard",
    ],
)
def test_ipython_lines_are_masked(line):
    virtual = virtual_of("x = 1", line, "y = 2")
    assert virtual == ["x = 1", "pass  # " + line, "y = 2"]


@pytest.mark.parametrize(
    "line",
    [
        "get_ipython().run_line_magic('matplotlib', 'inline')",
        "get_ipython().system('pip install -q torch')",
        "x = a % b",
        "x %= 3",
        "ok = x != 3",
        "print('what?')",
        "x = 1  # why?",
        "ls = [1, 2]",
        "time.sleep(1)",
        "cd = 3",
        "pip = None",
        "cd",
        "d = {'a': 1}",
    ],
)
def test_python_lines_are_left_alone(line):
    assert virtual_of("x = 1", line, "y = 2")[1] == line


def test_masks_keep_indentation_and_parse_in_blocks():
    virtual = virtual_of(
        "for i in range(3):",
        "    !echo $i",
        "if True:",
        "    %time f()",
        "    model?",
        "def f():",
        "    x = !ls",
    )
    assert virtual == [
        "for i in range(3):",
        "    pass  # !echo $i",
        "if True:",
        "    f()",
        "    pass  # model?",
        "def f():",
        "    pass  # x = !ls",
    ]


def test_lines_inside_strings_and_brackets_are_not_magics():
    lines = [
        's = """',
        "!not a shell command",
        "%neither",
        "what?",
        '"""',
        "x = [",
        "    1,",
        "]",
        "y = 'a \\",
        "!b'",
        "z = (1 +",
        "     2)  # ?",
    ]
    assert virtual_of(*lines) == lines


def test_a_shell_command_continued_with_backslashes_is_masked_whole():
    virtual = virtual_of("if True:", "    !pip install \\", "        torch \\", "  numpy", "x = 1")
    assert virtual == ["if True:", "    pass  # !pip install \\", "    pass  # torch \\", "    pass  # numpy", "x = 1"]


def test_statements_starting_with_an_automagic_name_are_python():
    lines = ["cat = pd.concat([a,", "                 b])", "pip = dict(", "    a=1)", "ls -la", "time (f())"]
    assert virtual_of(*lines) == lines


def test_an_indented_cell_is_dedented_like_ipython_does():
    data = json.dumps(notebook([code(["    x = 1\n", "    for i in r:\n", "        !echo $i\n", "\n", "        y = i"])]), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "x = 1\nfor i in r:\n    pass  # !echo $i\n\n    y = i\n"
    assert doc.locate(Span(5, 4, 5, 9)) == (1, Span(5, 8, 5, 13))
    assert doc.source_line(5) == "        y = i"
    new = doc.render("x = 1\nfor i in r:\n    pass  # !echo $i\n\n    y = i\n    z = y\n")
    assert json.loads(new)["cells"][0]["source"][-2:] == ["        y = i\n", "        z = y"]


def test_time_magic_with_options_or_non_python_is_handled():
    assert virtual_of("%timeit -n 10 -r 3 f(x)")[0] == "f(x)"
    assert virtual_of("%time for i in range(3): f(i)")[0] == "for i in range(3): f(i)"
    assert virtual_of("%time")[0] == "pass  # %time"
    assert virtual_of("%time x = ")[0] == "pass  # %time x = "
    assert virtual_of("%timeit -x f()")[0] == "pass  # %timeit -x f()"


# --------------------------------------------------------------------------------------------
# Cells that are not analysed


def test_cell_magics():
    cells = [
        code("%%capture out\nimport torch"),
        code("%%bash\nfor f in *.py; do echo $f; done"),
        code(["%%writefile train.py\n", "import torch\n", "loss.backward(\n"]),
        code("\n%%timeit\nx = torch.ones(3)"),
        code("%%html\n<b>hi</b>"),
    ]
    data = json.dumps(notebook(cells), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "pass  # %%capture out\nimport torch\n\npass  # %%timeit\nx = torch.ones(3)\n"
    assert doc.skipped_cells == {2: "%%bash cell", 3: "%%writefile cell", 5: "%%html cell"}
    assert doc.locate(Span(5, 0, 5, 1)) == (4, Span(3, 0, 3, 1))
    assert doc.render(doc.text) == data


def test_skip_cell():
    cells = [
        markdown(["# Title"]),
        code(["import torch\n", "opt = torch.optim.SGD(params, lr=0.1)"]),
        code(["# gradlint: skip-cell\n", "for x in data:\n", "    opt.step()\n", "    loss.backward()"]),
        code(["for x in data:\n", "    loss.backward()\n", "    opt.step()"]),
    ]
    data = json.dumps(notebook(cells), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert "skip-cell" not in doc.text and doc.text.count("for x in data:") == 1
    assert doc.skipped_cells == {3: "# gradlint: skip-cell"}
    assert doc.locate(Span(3, 4, 3, 19)) == (4, Span(1, 4, 1, 19))
    new = doc.render(doc.text.replace("    opt.step()", "    opt.step()\n    opt.zero_grad()"))
    assert cell_source(json.loads(new), 3) == cell_source(json.loads(data), 3)
    assert cell_source(json.loads(new), 4).endswith("    opt.step()\n    opt.zero_grad()")


def test_cells_in_another_language_are_skipped():
    cells = [code("x = 1"), code("SELECT 1", metadata={"vscode": {"languageId": "sql"}})]
    doc = NotebookDocument.from_bytes("nb.ipynb", json.dumps(notebook(cells)).encode())
    assert doc.text == "x = 1\n" and doc.skipped_cells == {2: "cell language is sql"}


@pytest.mark.parametrize("metadata", [
    {"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}, "language_info": {"name": "R"}},
    {"kernelspec": {"name": "julia-1.10", "language": "julia", "display_name": "Julia 1.10"}},
])
def test_a_notebook_in_another_language_is_skipped_without_error(metadata):
    nb = {"cells": [code("library(torch)\nx <- torch_randn(3)")], "metadata": metadata, "nbformat": 4, "nbformat_minor": 4}
    data = json.dumps(nb, indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "" and "not Python" in doc.skip_reason
    assert doc.render("") == data
    with pytest.raises(SourceError):
        doc.render("x = 1\n")


def test_a_notebook_without_kernel_metadata_is_python():
    doc = NotebookDocument.from_bytes("nb.ipynb", json.dumps(notebook([code("x = 1")], language=None)).encode())
    assert doc.text == "x = 1\n" and doc.skip_reason is None


# --------------------------------------------------------------------------------------------
# Unusual but valid notebooks


def test_source_as_one_string_is_read_and_written_as_a_string():
    cells = [code("import torch\nfor x in data:\n    loss.backward()\n    opt.step()\n")]
    data = json.dumps(notebook(cells), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "import torch\nfor x in data:\n    loss.backward()\n    opt.step()\n"
    assert doc.render(doc.text) == data
    new = doc.render(doc.text + "    opt.zero_grad()\n")
    assert json.loads(new)["cells"][0]["source"] == "import torch\nfor x in data:\n    loss.backward()\n    opt.step()\n    opt.zero_grad()\n"
    nbformat.validate(nbformat.reads(new.decode(), as_version=4))


def test_empty_notebook():
    data = json.dumps(notebook([]), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "" and doc.render("") == data and doc.diff("") == ""
    assert doc.locate(Span(1, 0, 1, 0)) == (None, Span(1, 0, 1, 0))
    with pytest.raises(SourceError, match="no analysed code cell"):
        doc.render("x = 1\n")


def test_empty_and_blank_cells():
    cells = [code([]), code(""), code(["x = 1"]), code(["\n", "\n"]), markdown([]), code("y = 2")]
    data = json.dumps(notebook(cells), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "x = 1\n\n\ny = 2\n"
    assert doc.locate(Span(4, 0, 4, 1)) == (6, Span(1, 0, 1, 1))
    new = doc.render("x = 1\n\n\ny = 3\n")
    assert_only_cells_changed(data, new, {6: "y = 3"})
    # Deleting every line of a cell leaves it empty.
    new = doc.render("\n\ny = 2\n")
    assert json.loads(new)["cells"][2]["source"] == []


def test_minified_notebook_stays_on_one_line():
    data = json.dumps(notebook([code(["import torch\n", "x = 1"]), code(["y = 2"])]), separators=(",", ":")).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    new = doc.render("import torch\nx = 2\ny = 2\nz = 3\n")
    assert b"\n" not in new
    nb = json.loads(new)
    assert nb["cells"][0]["source"] == ["import torch\n", "x = 2"]
    assert nb["cells"][1]["source"] == ["y = 2\n", "z = 3"]
    assert new.replace(b'"x = 2"', b'"x = 1"').replace(b'["y = 2\\n","z = 3"]', b'["y = 2"]') == data


def test_byte_order_mark_is_kept():
    data = b"\xef\xbb\xbf" + json.dumps(notebook([code(["x = 1"])]), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "x = 1\n"
    assert doc.render("x = 2\n") == data.replace(b'"x = 1"', b'"x = 2"')


def test_cell_source_with_trailing_newline_keeps_it():
    data = json.dumps(notebook([code(["x = 1\n", "y = 2\n"])]), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "x = 1\ny = 2\n"
    assert json.loads(doc.render("x = 1\ny = 3\n"))["cells"][0]["source"] == ["x = 1\n", "y = 3\n"]


@pytest.mark.parametrize("split", [True, False])
def test_lines_with_rare_line_breaks_keep_their_list_items(split):
    source = ["import torch\r\n", "s = 'a\u2028", "b'\r\n", "x = 1"] if split else ["import torch\r\n", "s = 'a\u2028b'\r\n", "x = 1"]
    data = json.dumps(notebook([code(source)]), indent=1, ensure_ascii=False).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    assert doc.text == "import torch\r\ns = 'a\u2028b'\r\nx = 1\n"
    new = doc.render(doc.text.replace("x = 1", "x = 2"))
    assert json.loads(new)["cells"][0]["source"] == source[:-1] + ["x = 2"]


def test_crlf_lines_added_at_the_end_of_a_cell():
    data = json.dumps(notebook([code(["x = 1\r\n", "y = 2"]), code(["z = 3"])]), indent=1).encode()
    doc = NotebookDocument.from_bytes("nb.ipynb", data)
    new = doc.render("x = 1\r\ny = 2\r\nw = 4\r\n\r\nz = 3\n")
    # The blank line before cell 2 is the line end the cell's last line gets back.
    assert json.loads(new)["cells"][0]["source"] == ["x = 1\r\n", "y = 2\r\n", "w = 4\r\n"]
    assert json.loads(new)["cells"][1]["source"] == ["z = 3"]


def test_non_ascii_in_a_new_line_follows_the_file():
    raw = json.dumps(notebook([code(["x = 1  # é"])]), indent=1, ensure_ascii=False).encode()
    escaped = json.dumps(notebook([code(["x = 1  # é"])]), indent=1, ensure_ascii=True).encode()
    plain = json.dumps(notebook([code(["x = 1"])]), indent=1).encode()
    for data, expected in ((raw, "# à".encode()), (escaped, b"# \\u00e0"), (plain, "# à".encode())):
        doc = NotebookDocument.from_bytes("nb.ipynb", data)
        new = doc.render(doc.text + "y = 2  # à\n")
        assert expected in new
        assert json.loads(new)["cells"][0]["source"][-1] == "y = 2  # à"


# --------------------------------------------------------------------------------------------
# Bad notebooks


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"cells": [', "invalid notebook JSON"),
        (b"", "the file is empty"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[1, 2]", "top level is not a JSON object"),
        (b'{"cells": []}', "no 'nbformat'"),
        (json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}).encode(), "nbformat 3"),
        (json.dumps({"nbformat": "4", "cells": []}).encode(), "'nbformat' is '4'"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode(), "no 'cells'"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": {}}).encode(), "'cells' is not a list"),
        (json.dumps({"nbformat": 4, "metadata": {}, "cells": ["x = 1"]}).encode(), "cell 1 is not an object"),
        (json.dumps({"nbformat": 4, "metadata": {}, "cells": [{"source": "x"}]}).encode(), "cell 1 has no 'cell_type'"),
        (json.dumps({"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "outputs": []}]}).encode(), "code cell 1 has no 'source'"),
        (json.dumps({"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "source": ["x", 1]}]}).encode(), "source of cell 1 is not text"),
    ],
)
def test_bad_notebooks_get_a_one_line_error(data, message):
    with pytest.raises(SourceError) as info:
        load_document("bad.ipynb", data)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
