/// The HTML report's style sheet, inline (allowed by its SHA-256 in the page's Content-Security-Policy).
/// System fonts only, no web font. The status colours are one palette for cards, pills and charts. In print
/// the filter controls go, every `<details>` opens, and backgrounds give way to borders.
enum AuditHTMLStyle {
  static let css = #"""
    :root { --ink: #111827; --muted: #6b7280; --line: #e5e7eb; --bg: #f3f5f8; --panel: #fff; --accent: #1d4ed8;
      --compliant: #16a34a; --drifted: #d97706; --unreachable: #7c3aed; --missing: #dc2626; --unknown: #94a3b8;
      --fw: #2563eb; --battery: #0e7490; --low: #dc2626; }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--ink);
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif; }
    .page-head { background: #0f172a; color: #f8fafc; padding: 26px 40px 20px; }
    .title-row, .meta { max-width: 1240px; margin: 0 auto; }
    .title-row { display: flex; justify-content: space-between; align-items: flex-end; gap: 24px; }
    .eyebrow { margin: 0; text-transform: uppercase; letter-spacing: .1em; font-size: 11px; color: #94a3b8; }
    h1 { margin: 2px 0 0; font-size: 28px; font-weight: 700; letter-spacing: -.01em; }
    .generated { margin: 0; color: #cbd5e1; }
    .meta { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 10px 28px;
      margin-top: 18px; padding-top: 14px; border-top: 1px solid #1e293b; }
    .meta div { min-width: 0; }
    .meta dt { font-size: 11px; text-transform: uppercase; letter-spacing: .07em; color: #94a3b8; }
    .meta dd { margin: 2px 0 0; color: #f1f5f9; overflow-wrap: anywhere; }
    main { max-width: 1320px; margin: 0 auto; padding: 22px 40px 32px; }
    h2 { font-size: 17px; margin: 26px 0 10px; }
    .verdict { margin: 0; padding: 12px 16px; border-radius: 8px; border: 1px solid var(--line); border-left: 5px solid var(--unknown);
      background: var(--panel); }
    .verdict.attention { background: #fffbeb; border-color: #fde68a; border-left-color: var(--drifted); }
    .verdict.ok { background: #f0fdf4; border-color: #bbf7d0; border-left-color: var(--compliant); }
    .cards { display: grid; grid-template-columns: repeat(6, minmax(0, 1fr)); gap: 12px; }
    .cards.flags { grid-template-columns: repeat(3, minmax(0, 1fr)); margin-top: 12px; }
    .card { background: var(--panel); border: 1px solid var(--line); border-top: 4px solid #cbd5e1; border-radius: 10px; padding: 10px 14px 12px; }
    .card.total { border-top-color: var(--ink); }
    .card.st-compliant { border-top-color: var(--compliant); } .card.st-drifted { border-top-color: var(--drifted); }
    .card.st-unreachable { border-top-color: var(--unreachable); } .card.st-missing { border-top-color: var(--missing); }
    .card.st-unknown { border-top-color: var(--unknown); } .card.flag-on { border-top-color: var(--low); }
    .card-label { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; font-weight: 600; }
    .card-value { font-size: 30px; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.25; }
    .card-note { font-size: 12px; color: var(--muted); }
    .card.flag-on .card-value { color: var(--low); } .card.flag-off .card-value { color: var(--muted); }
    .charts { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 14px; }
    .panel { margin: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
    .panel.wide { grid-column: 1 / -1; }
    .panel h3 { margin: 0; font-size: 15px; }
    .panel figcaption p { margin: 2px 0 10px; color: var(--muted); font-size: 12px; }
    svg.chart { display: block; width: 100%; height: auto; font-size: 13px; }
    svg.chart + svg.chart { margin-top: 12px; }
    svg text { fill: var(--ink); } svg text.muted { fill: var(--muted); } svg text.axis { fill: #374151; }
    svg .small { font-size: 11px; } svg .big { font-size: 30px; font-weight: 700; }
    svg .num { font-weight: 600; font-variant-numeric: tabular-nums; }
    svg .track { fill: none; stroke: #eef1f5; stroke-width: 28; } svg .seg { fill: none; stroke-width: 28; }
    svg .seg.st-compliant { stroke: var(--compliant); } svg .seg.st-drifted { stroke: var(--drifted); }
    svg .seg.st-unreachable { stroke: var(--unreachable); } svg .seg.st-missing { stroke: var(--missing); }
    svg .seg.st-unknown { stroke: var(--unknown); }
    svg rect.st-compliant { fill: var(--compliant); } svg rect.st-drifted { fill: var(--drifted); }
    svg rect.st-unreachable { fill: var(--unreachable); } svg rect.st-missing { fill: var(--missing); }
    svg rect.st-unknown { fill: var(--unknown); }
    svg .bar.fw { fill: var(--fw); } svg .bar.fw.unknown { fill: var(--unknown); }
    svg .bar.battery { fill: var(--battery); } svg .bar.battery.low { fill: var(--low); }
    svg .grid { stroke: var(--line); stroke-dasharray: 3 3; } svg .baseline { stroke: #9ca3af; }
    svg .bar:hover, svg .seg:hover { opacity: .8; }
    .controls { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: center; margin-bottom: 6px; }
    .controls[hidden] { display: none; }
    .controls label { color: var(--muted); font-size: 12px; font-weight: 600; }
    .controls input, .controls select, .controls button { font: inherit; font-size: 14px; color: var(--ink); margin-left: 6px;
      padding: 6px 10px; border: 1px solid #cbd5e1; border-radius: 6px; background: #fff; }
    .controls input { width: 300px; } .controls button { margin-left: auto; cursor: pointer; }
    .showing { color: var(--muted); margin: 6px 0 10px; }
    .table-wrap { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; overflow-x: auto; }
    #devices { width: 100%; border-collapse: collapse; }
    #devices th { background: #f8fafc; text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .05em;
      color: #475569; padding: 9px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; }
    #devices th button { all: unset; cursor: pointer; }
    #devices th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    #devices th[aria-sort="ascending"] button::after { content: " \25B2"; font-size: 9px; }
    #devices th[aria-sort="descending"] button::after { content: " \25BC"; font-size: 9px; }
    #devices > tbody > tr > td { padding: 8px 10px; border-bottom: 1px solid #eef1f5; vertical-align: top; }
    #devices > tbody > tr:last-child > td { border-bottom: none; }
    #devices > tbody > tr:hover { background: #f8fafc; }
    #devices th.numeric { text-align: right; }
    #devices td.numeric { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
    .mono, code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; }
    .mono, #devices time { white-space: nowrap; }
    .name { font-weight: 600; overflow-wrap: anywhere; }
    #devices > tbody > tr > td:nth-child(2) { min-width: 150px; }
    .sub { font-size: 12px; color: var(--muted); } .muted { color: var(--muted); } .zero { color: var(--muted); }
    .pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; border: 1px solid; }
    .pill.st-compliant { color: #166534; background: #dcfce7; border-color: #bbf7d0; }
    .pill.st-drifted { color: #92400e; background: #fef3c7; border-color: #fde68a; }
    .pill.st-unreachable { color: #5b21b6; background: #ede9fe; border-color: #ddd6fe; }
    .pill.st-missing { color: #991b1b; background: #fee2e2; border-color: #fecaca; }
    .pill.st-unknown { color: #334155; background: #f1f5f9; border-color: #e2e8f0; }
    .chip { display: inline-block; padding: 0 7px; margin: 1px 0; border-radius: 4px; background: #eef2ff; color: #3730a3;
      font-size: 12px; white-space: nowrap; }
    .chip.flag { background: #fef2f2; color: #b91c1c; }
    .battery.low { color: var(--low); font-weight: 600; }
    svg.trend { display: block; margin-top: 2px; overflow: visible; }
    svg.trend polyline { fill: none; stroke: var(--muted); stroke-width: 1.5; stroke-linejoin: round; }
    #devices > tbody > tr.has-detail > td { border-bottom: none; padding-bottom: 2px; }
    #devices > tbody > tr.detail > td { padding: 0 10px 8px 10px; }
    #devices > tbody > tr.detail:hover { background: none; }
    details summary, .detail-line { cursor: pointer; color: var(--accent); font-size: 12px; font-weight: 600; }
    .detail-line { cursor: auto; margin: 0 0 0 14px; } summary .error, .detail-line .error { margin: 0; font-weight: 600; }
    .drift-body { margin: 6px 0 2px 14px; }
    table.drift { border-collapse: collapse; font-size: 12px; margin: 2px 0 4px; }
    table.drift th, table.drift td { padding: 3px 8px; border: 1px solid var(--line); text-align: left; vertical-align: top; }
    table.drift th { background: #f8fafc; font-weight: 600; }
    .error { color: #b91c1c; margin: 4px 0; } .run { margin: 4px 0; font-size: 12px; }
    .outcome.failed { color: #b91c1c; font-weight: 600; }
    .no-match { padding: 14px; color: var(--muted); text-align: center; }
    footer { max-width: 1320px; margin: 0 auto; padding: 0 40px 28px; color: var(--muted); font-size: 12px; }
    @media (max-width: 960px) {
      .cards { grid-template-columns: repeat(3, minmax(0, 1fr)); } .charts { grid-template-columns: 1fr; }
    }
    @media print {
      @page { margin: 12mm; }
      body { background: #fff; font-size: 11px; }
      .page-head { background: none; color: var(--ink); padding: 0 0 10px; border-bottom: 2px solid var(--ink); }
      .meta { border-top-color: var(--line); } .meta dd { color: var(--ink); } .generated { color: var(--muted); }
      main, footer { max-width: none; padding-left: 0; padding-right: 0; }
      .controls, .hint { display: none !important; }
      .verdict, .verdict.attention, .verdict.ok, .card, .panel, .table-wrap { background: none; }
      .card, .panel, #devices tr { break-inside: avoid; }
      .pill, .chip, #devices th, table.drift th { background: none !important; }
      .cards { grid-template-columns: repeat(6, minmax(0, 1fr)); gap: 8px; } .cards.flags { grid-template-columns: repeat(3, minmax(0, 1fr)); }
      .card-value { font-size: 22px; } .charts { grid-template-columns: 1fr; } .panel.wide { grid-column: auto; }
      #devices { font-size: 9.5px; } #devices th { font-size: 8px; letter-spacing: 0; padding: 4px; }
      #devices > tbody > tr > td { padding: 4px; } #devices > tbody > tr > td:nth-child(2) { min-width: 0; }
      .mono, code, .sub, .pill, .chip, details summary, .detail-line, table.drift, .run { font-size: 9px; }
      .pill { padding: 0 4px; } .chip { padding: 0 3px; }
      .chip { border: 1px solid var(--line); }
      #devices > tbody > tr:hover { background: none; }
      .table-wrap { overflow: visible; border: none; }
      details summary { color: var(--ink); }
    }
    @media print {
      details::details-content { content-visibility: visible; display: contents; }
    }
    """#
}
