"""The language server (`gradlint lsp`), on pygls 2 over stdio.

* diagnostics: pulled (`textDocument/diagnostic`, `workspace/diagnostic`) by clients that pull,
  else pushed when a document opens or is saved and 200 ms after the last change;
* code actions: each finding's fix as a quick fix (its title says when the fix is unsafe),
  "Ignore GLxxx on this line", and `source.fixAll.gradlint`; the command
  `gradlint.applyAutofix` fixes a whole document through `workspace/applyEdit`;
* hover: the rule's documentation over a finding or over a code in a suppression comment;
* settings (select, ignore, unsafeFixes) from `initializationOptions` and
  `workspace/didChangeConfiguration`, over the nearest pyproject.toml's `[tool.gradlint]`;
* Jupyter notebooks through LSP 3.17 notebook sync: the code cells are one virtual module, each
  cell's diagnostics go to that cell's URI, fixes edit the cells they touch.

Parts: `documents` (the document store), `analysis` (the cache), `settings`, `edits`, `hover`,
`server` (state, push), `handlers` (the LSP methods). Nothing here is imported by `gradlint check`.
"""

from gradlint.lsp.handlers import make_server, serve

__all__ = ["make_server", "serve"]
