// The toolbar's styles. They live in its shadow root, so nothing here reaches the page. The page
// can still reach the host element (a page rule such as `* { all: unset; font-size: 30px
// !important }` matches it and wins over `:host`), and what the host inherits flows into the shadow
// tree: so the bar's two top-level boxes reset every property (`all: initial`) and declare their
// own font, colours and variables instead of inheriting them from the host.
export const STYLES = `
:host{all:initial;position:fixed;left:0;right:0;bottom:0;z-index:2147483647}
.bar,.handle,.devfail{all:initial;display:block;box-sizing:border-box;direction:ltr;font:12px/1.45 ui-sans-serif,system-ui,sans-serif;color:var(--fg);color-scheme:light dark;
--bg:#f8f8f7;--fg:#1c1c1c;--dim:#666;--line:#d6d6d3;--accent:#2563eb;--sel:#dbe7ff;--bad:#b91c1c;--badbg:#fde8e8;--bar:#8aa4d6;--code:#efefec}
@media (prefers-color-scheme:dark){.bar,.handle,.devfail{--bg:#1d1f23;--fg:#e6e6e6;--dim:#9aa0a6;--line:#3a3d42;--accent:#7aa2ff;--sel:#2b3a57;--bad:#ff8080;--badbg:#3d2020;--bar:#5a7bbf;--code:#26292e}}
:host([hidden-bar]){left:auto;right:8px;bottom:8px}
*{box-sizing:border-box}
button{font:inherit;color:inherit;background:none;border:0;padding:0;cursor:pointer}
button:focus-visible,summary:focus-visible,textarea:focus-visible,input:focus-visible{outline:2px solid var(--accent);outline-offset:1px}
.bar{background:var(--bg);color:var(--fg);border-top:1px solid var(--line);box-shadow:0 -2px 8px rgba(0,0,0,.12)}
.head{display:flex;align-items:center;gap:2px;min-height:28px;padding:0 4px;overflow-x:auto;white-space:nowrap}
.brand{font-weight:700;padding:0 8px 0 4px;color:var(--accent)}
.tabs{display:flex;align-items:center;gap:2px}
.tab{padding:4px 8px;border-radius:4px}
.tab:hover{background:var(--code)}
.tab[aria-selected=true]{background:var(--sel)}
.tab.alert{color:var(--bad);font-weight:600}
.count{color:var(--dim);margin-left:4px}
.alert .count{color:var(--bad)}
.spacer{flex:1}
.chip{background:var(--sel);border-radius:10px;padding:2px 8px;margin:0 4px}
.sum{color:var(--dim);padding:0 6px}
.close{padding:4px 8px;font-size:14px;line-height:1}
.panel{max-height:45vh;overflow:auto;padding:8px 10px;border-bottom:1px solid var(--line)}
.panel[hidden],.handle[hidden],.bar[hidden]{display:none}
.handle{cursor:pointer;background:var(--bg);color:var(--accent);font-weight:700;border:1px solid var(--line);border-radius:6px;padding:4px 8px;box-shadow:0 1px 4px rgba(0,0,0,.2)}
h3{font-size:12px;margin:10px 0 4px;text-transform:uppercase;letter-spacing:.04em;color:var(--dim)}
h3:first-child{margin-top:0}
table.grid{border-collapse:collapse;width:100%}
.grid th{text-align:left;font-weight:600;color:var(--dim);border-bottom:1px solid var(--line);padding:3px 6px}
.grid td{border-bottom:1px solid var(--line);padding:3px 6px;vertical-align:top}
.grid tr.failed td{color:var(--bad);background:var(--badbg)}
.grid tr[aria-selected=true] td{background:var(--sel)}
.requests tr[data-row]{cursor:pointer}
.grid td.num,.grid th.num{text-align:right;font-variant-numeric:tabular-nums}
.pick{text-align:left;width:100%}
.requests .pick{display:inline-block;width:auto;max-width:55vw;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.requests .count{white-space:nowrap}
code,pre,.mono{font:11px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:4px 0;padding:6px;background:var(--code);border-radius:4px;white-space:pre-wrap;word-break:break-all;max-height:240px;overflow:auto}
details>summary{cursor:pointer;color:var(--dim)}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}
dl.kv dt{color:var(--dim)}
dl.kv dd{margin:0;word-break:break-all}
.note{color:var(--dim);margin:4px 0;overflow-wrap:anywhere}
.bad{color:var(--bad);font-weight:600}
.reqbody{margin-bottom:6px}
.timeline{position:relative;border:1px solid var(--line);border-radius:4px;margin-bottom:8px;padding:2px 0}
.lane{position:relative;height:14px}
.tbar{position:absolute;top:2px;height:10px;min-width:3px;background:var(--bar);border-radius:2px}
.tbar.failed{background:var(--bad)}
.tbar[aria-pressed=true]{outline:2px solid var(--accent)}
.small{font-size:11px;padding:1px 6px;border:1px solid var(--line);border-radius:3px}
textarea,input.path{width:100%;font:11px/1.4 ui-monospace,monospace;background:var(--code);color:var(--fg);border:1px solid var(--line);border-radius:4px;padding:4px}
textarea{min-height:90px}
.op{display:flex;gap:8px;align-items:baseline}
.method{font-weight:700;min-width:52px;display:inline-block}
.devnote{color:var(--dim);padding:0 6px;overflow:hidden;text-overflow:ellipsis;max-width:40vw}
.devnote b{color:var(--accent);font-weight:600}
.devfail{position:fixed;inset:0;overflow:auto;padding:6vh 16px;background:rgba(0,0,0,.45)}
.devfail .card{max-width:960px;margin:0 auto;background:var(--bg);border:1px solid var(--line);border-top:3px solid var(--bad);border-radius:6px;padding:10px 14px;box-shadow:0 4px 24px rgba(0,0,0,.3)}
.devfail .top{display:flex;align-items:center;gap:6px}
.devfail .title{flex:1;font-weight:700;color:var(--bad)}
.devfail .where{color:var(--accent);margin-top:6px}
.devfail pre{max-height:none}
.devfail .message{color:var(--bad);background:var(--badbg)}
`
