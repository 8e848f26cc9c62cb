/// The frame of an HTML report: one document with its style and script inline, no external URL.
enum ReportHTML {
  /// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attribute values.
  static func escaped(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.append(character)
      }
    }
    return result
  }

  /// The whole document around `body`.
  static func document(title: String, body: String, script: String) -> String {
    """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
    <title>\(escaped(title))</title>
    <style>
    body { margin: 0 auto; max-width: 1100px; padding: 1.5rem; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; }
    h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
    .figures { display: flex; flex-wrap: wrap; gap: .75rem; }
    .figure { border: 1px solid #d9dee7; border-radius: 8px; padding: .5rem .8rem; min-width: 8rem; }
    .figure span { display: block; color: #5b6475; font-size: .85rem; }
    .figure strong { font-size: 1.2rem; font-variant-numeric: tabular-nums; }
    table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
    th, td { padding: .25rem .6rem; border-bottom: 1px solid #e6e9ef; text-align: right; }
    th[scope=row], thead th:first-child { text-align: left; font-weight: normal; }
    thead button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: #2456c9; }
    thead button:focus-visible { outline: 2px solid #2456c9; outline-offset: 2px; }
    .hint { color: #5b6475; font-size: .85rem; }
    .heatmap { overflow-x: auto; border: 1px solid #e6e9ef; border-radius: 8px; padding: .5rem; }
    .heatmap svg { display: block; max-width: none; }
    .gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: .8rem; }
    figure { margin: 0; font-size: .8rem; } figure img, .missing { width: 128px; height: 128px; border-radius: 6px; object-fit: cover; background: #f0f2f6; display: flex; align-items: center; justify-content: center; color: #5b6475; }
    figcaption small { color: #5b6475; word-break: break-all; }
    @media (max-width: 640px) { body { padding: .75rem; } th, td { padding: .2rem .3rem; } }
    </style>
    </head>
    <body>
    <h1>\(escaped(title))</h1>
    \(body)
    <script>
    \(script)
    </script>
    </body>
    </html>

    """
  }

  /// Sorts the per-class table by the column whose header button was pressed (numbers by their
  /// `data-value`, names alphabetically); pressing it again reverses the order.
  static let sortScript = """
    "use strict";
    (function () {
      const table = document.getElementById("classes");
      if (!table) return;
      const body = table.tBodies[0];
      let column = -1, ascending = true;
      for (const button of table.querySelectorAll("thead button")) {
        button.addEventListener("click", () => {
          const index = Number(button.dataset.column);
          ascending = index === column ? !ascending : index === 0;
          column = index;
          const rows = Array.from(body.rows);
          const key = (row) => {
            const cell = row.cells[index];
            return index === 0 ? cell.textContent : Number(cell.dataset.value);
          };
          rows.sort((a, b) => {
            const x = key(a), y = key(b);
            const order = typeof x === "string" ? x.localeCompare(y) : x - y;
            return ascending ? order : -order;
          });
          body.replaceChildren(...rows);
          for (const other of table.querySelectorAll("thead th")) other.removeAttribute("aria-sort");
          button.parentElement.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        });
      }
    })();
    """
}
