/** The console's style sheet: system fonts, tables that scroll sideways on a phone. */
export const STYLE_CSS = String.raw`
:root { --fg: #1b1f24; --muted: #5c6670; --line: #d8dee4; --bg: #f6f8fa; --accent: #0b5cad; --bad: #b3261e; --good: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
header.top { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: center; padding: 10px 18px; background: #10243e; color: #fff; }
header.top a { color: #d6e6ff; text-decoration: none; }
header.top a:hover, header.top a:focus { text-decoration: underline; }
.brand { font-weight: 700; font-size: 17px; color: #fff !important; }
nav { display: flex; gap: 16px; flex-wrap: wrap; }
.mode { margin-left: auto; font-size: 12px; color: #9fb6d3; }
main { padding: 16px 18px 40px; max-width: 1280px; }
h1 { font-size: 20px; margin: 4px 0 12px; word-break: break-all; }
h2 { font-size: 16px; margin: 22px 0 8px; }
.crumbs { color: var(--muted); margin-bottom: 6px; word-break: break-all; }
.crumbs a { color: var(--accent); }
.scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 9px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:last-child td { border-bottom: 0; }
a { color: var(--accent); }
code, .mono, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; max-height: 260px; overflow: auto; }
.muted { color: var(--muted); }
.hdr pre { display: inline; }
.bad { color: var(--bad); font-weight: 600; }
.good { color: var(--good); font-weight: 600; }
.error { background: #fdecea; color: var(--bad); padding: 8px 12px; border-radius: 6px; margin: 8px 0; white-space: pre-wrap; }
form.bar, .bar { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 8px 0 12px; }
label { display: flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--muted); }
input, select, textarea, button { font: inherit; padding: 5px 8px; border: 1px solid #b9c2cc; border-radius: 5px; background: #fff; color: var(--fg); }
textarea { min-width: 260px; min-height: 60px; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
label.check { flex-direction: row; align-items: center; gap: 6px; align-self: center; }
.spark { display: block; width: 120px; height: 26px; }
.chart { display: block; width: 100%; max-width: 640px; height: auto; }
.hist { display: inline-flex; align-items: flex-end; gap: 1px; height: 20px; }
.hist i { display: inline-block; width: 6px; background: #0b5cad; }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #7db4f0; outline-offset: 1px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 8px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: var(--bg); min-width: 130px; }
.card b { display: block; font-size: 18px; }
.hex { display: flex; flex-wrap: wrap; gap: 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; max-width: 820px; }
.hex span { padding: 1px 3px; border-radius: 2px; }
.f0 { background: #dbeafe; } .f1 { background: #fde2c8; } .f2 { background: #dcfce7; } .f3 { background: #f3d9fa; }
.f4 { background: #fee2e2; } .f5 { background: #e0e7ff; } .f6 { background: #fef9c3; } .f7 { background: #ccfbf1; }
.rec { background: #eef0f2; color: var(--muted); }
.legend { margin-top: 6px; }
.sparse { display: block; width: 100%; max-width: 820px; height: 44px; }
@media (max-width: 640px) {
  main { padding: 10px 10px 30px; }
  header.top { padding: 8px 10px; }
  .mode { margin-left: 0; width: 100%; }
  textarea { min-width: 0; width: 100%; }
  td pre { min-width: 16ch; }
  form.bar > label { flex: 1 1 45%; }
}
`;
