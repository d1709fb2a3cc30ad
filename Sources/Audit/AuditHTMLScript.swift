/// The HTML report's one script, inline (the page's Content-Security-Policy allows it by its SHA-256 and
/// nothing else). It reads everything from the page: no report data is put into script text, so nothing a
/// device advertises can reach it as code, and it writes only with `textContent`. It turns the column
/// headers into sort buttons, filters rows by a text box and a status select, honours `#filter=`, `#q=`,
/// `#sort=` and `#dir=desc` in the URL, opens every `<details>` for printing, and when done sets
/// `body[data-ready="1"]` and the visible row count in `#visible-count`.
enum AuditHTMLScript {
  static let js = #"""
    (() => {
      "use strict";
      const $ = (id) => document.getElementById(id);
      const table = $("devices"), tbody = table.tBodies[0];
      const rows = [...tbody.querySelectorAll("tr[data-address]")];
      // A device's drift row (tr.detail) follows it; it is searched, moved and hidden with it.
      const detailOf = new Map(rows.map((r) => {
        const next = r.nextElementSibling;
        return [r, next && next.classList.contains("detail") ? next : null];
      }));
      const haystack = new Map(rows.map((r) => [r, (r.textContent + " " + (detailOf.get(r)?.textContent ?? "")).toLowerCase()]));
      const headers = [...table.tHead.rows[0].cells];
      const text = $("filter-text"), status = $("filter-status");

      function filter() {
        const q = text.value.trim().toLowerCase(), wanted = status.value;
        let visible = 0;
        for (const r of rows) {
          const show = (!wanted || r.dataset.status === wanted) && (!q || haystack.get(r).includes(q));
          r.hidden = !show;
          if (detailOf.get(r)) detailOf.get(r).hidden = !show;
          if (show) visible++;
        }
        $("visible-count").textContent = String(visible);
        const by = [];
        if (wanted) by.push("status " + wanted);
        if (q) by.push("\u201c" + text.value.trim() + "\u201d");
        $("filter-note").textContent = by.length ? " (filtered by " + by.join(" and ") + ")" : "";
        $("no-match").hidden = visible > 0;
      }

      // A cell's sort value: its data-sort, else its text; empty is null and sorts last either way.
      function value(row, index, numeric) {
        const cell = row.cells[index];
        const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
        if (raw === "") return null;
        return numeric ? Number(raw) : raw.toLowerCase();
      }

      function sortBy(key, dir) {
        const index = headers.findIndex((h) => h.dataset.key === key);
        if (index < 0) return;
        const numeric = headers[index].dataset.type === "num", sign = dir === "desc" ? -1 : 1;
        // Sorting the rows in address order, stably: equal values stay in address order.
        const sorted = rows.slice().sort((a, b) => {
          const x = value(a, index, numeric), y = value(b, index, numeric);
          if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
          return sign * (numeric ? x - y : x.localeCompare(y));
        });
        for (const r of sorted) {
          tbody.appendChild(r);
          if (detailOf.get(r)) tbody.appendChild(detailOf.get(r));
        }
        headers.forEach((h, i) => h.setAttribute("aria-sort", i === index ? (sign > 0 ? "ascending" : "descending") : "none"));
      }

      for (const h of headers) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = h.textContent;
        button.title = "Sort by " + h.textContent.toLowerCase();
        h.textContent = "";
        h.appendChild(button);
        h.setAttribute("aria-sort", "none");
        button.addEventListener("click", () =>
          sortBy(h.dataset.key, h.getAttribute("aria-sort") === "ascending" ? "desc" : "asc"));
      }

      const details = [...table.querySelectorAll("details")];
      const expand = $("expand-all");
      expand.hidden = details.length === 0;
      expand.addEventListener("click", () => {
        const open = !details.every((d) => d.open);
        for (const d of details) d.open = open;
        expand.textContent = open ? "Collapse all details" : "Expand all details";
      });
      let closed = [];
      addEventListener("beforeprint", () => {
        closed = details.filter((d) => !d.open);
        for (const d of closed) d.open = true;
      });
      addEventListener("afterprint", () => {
        for (const d of closed) d.open = false;
        closed = [];
      });

      const params = new URLSearchParams(location.hash.slice(1));
      if (params.has("filter")) status.value = params.get("filter");
      if (params.has("q")) text.value = params.get("q");
      if (params.has("sort")) sortBy(params.get("sort"), params.get("dir") === "desc" ? "desc" : "asc");
      text.addEventListener("input", filter);
      status.addEventListener("change", filter);
      $("controls").hidden = false;
      filter();
      document.body.dataset.ready = "1";
    })();
    """#
}
