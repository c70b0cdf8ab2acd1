// Made by Scripts/webapp.py from WebApp/app.css: edit that file, then run the script.
extension WebApp {
    /// The page's style sheet. (`WebApp/app.css`)
    static let style = #"""
/* The web app's look: readable from a phone's width up, in light and dark, with a visible
   focus for keyboard users. */
:root {
  color-scheme: light dark;
  --ink: #1d1f23; --muted: #5b6270; --paper: #ffffff; --panel: #f3f4f7; --line: #d6d9e0;
  --accent: #1f5fd1; --accent-ink: #ffffff; --danger: #b3261e; --good: #1e7b3a; --loaded: #3a86ff;
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root { --ink: #e8eaef; --muted: #a4abb8; --paper: #15171b; --panel: #1f2228; --line: #383d47; --accent: #6ea1ff; --accent-ink: #0b1020; --loaded: #6ea1ff; }
}
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--paper); }
header { padding: 1rem 1.25rem 0.25rem; }
header h1 { margin: 0; font-size: 1.6rem; }
header p { margin: 0.2rem 0 0; color: var(--muted); }
main { display: grid; gap: 1.25rem; padding: 0 1.25rem 2rem; max-width: 75rem; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 0.6rem; padding: 1rem; min-width: 0; }
section h2 { margin: 0 0 0.75rem; font-size: 1.2rem; }
h3 { margin: 0; font-size: 1.05rem; }
#status { margin: 0.5rem 1.25rem; min-height: 1.45em; color: var(--good); }
#status.error, .error { color: var(--danger); }
.empty, .hint, .url, .id { color: var(--muted); }
.url, .id { font-size: 0.85rem; overflow-wrap: anywhere; margin: 0.15rem 0; }
.id { display: block; font-family: ui-monospace, monospace; }
.cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.75rem; grid-template-columns: repeat(auto-fill, minmax(18rem, 1fr)); }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem; display: flex; flex-direction: column; gap: 0.35rem; }
.card-head { display: flex; align-items: center; justify-content: space-between; gap: 0.5rem; flex-wrap: wrap; }
.badge { background: var(--good); color: #fff; border-radius: 1rem; padding: 0.05rem 0.6rem; font-size: 0.8rem; }
.state { margin: 0; font-weight: 600; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.25rem; }
button { font: inherit; padding: 0.45rem 0.9rem; min-height: 2.5rem; border-radius: 0.4rem; border: 1px solid var(--line); background: var(--paper); color: var(--ink); cursor: pointer; }
button.primary { background: var(--accent); color: var(--accent-ink); border-color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
button:disabled { opacity: 0.55; cursor: default; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
input, select { font: inherit; padding: 0.4rem; border-radius: 0.35rem; border: 1px solid var(--line); background: var(--paper); color: var(--ink); min-height: 2.4rem; }
.add-url { margin-top: 1rem; display: grid; gap: 0.35rem; }
.row { display: flex; gap: 0.5rem; flex-wrap: wrap; }
.row input { flex: 1 1 16rem; min-width: 0; }
.progress { display: grid; gap: 0.25rem; }
.progress progress { width: 100%; height: 0.8rem; }
.figures { margin: 0; font-size: 0.9rem; color: var(--muted); font-variant-numeric: tabular-nums; }
.ranges { display: grid; gap: 0.2rem; }
.range-row { display: grid; grid-template-columns: minmax(4rem, 9rem) 1fr; gap: 0.5rem; align-items: center; font-size: 0.8rem; }
.rendition { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--muted); }
.track { position: relative; height: 0.6rem; background: var(--line); border-radius: 0.3rem; overflow: hidden; }
.loaded { position: absolute; top: 0; bottom: 0; background: var(--loaded); }
video { width: 100%; max-height: 60vh; background: #000; border-radius: 0.4rem; }
.kpis { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 0.25rem 1rem; margin: 0.5rem 0; }
.kpis dt { color: var(--muted); font-size: 0.85rem; }
.kpis dd { margin: 0 0 0.4rem; font-variant-numeric: tabular-nums; }
.table-scroll { overflow-x: auto; }
.filter { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-bottom: 0.75rem; }
.filter input { flex: 1 1 12rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; margin-bottom: 0.75rem; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td { overflow-wrap: anywhere; }
.library .buttons { margin: 0; }
.settings { display: grid; grid-template-columns: max-content minmax(8rem, 14rem); gap: 0.5rem 0.75rem; align-items: center; margin-top: 0.75rem; }
.settings .choice, .settings .buttons { grid-column: 1 / -1; }
meter { width: 100%; height: 1rem; }
dialog { border: 1px solid var(--line); border-radius: 0.6rem; padding: 1rem 1.25rem; max-width: min(40rem, 94vw); color: var(--ink); background: var(--paper); }
dialog::backdrop { background: rgb(0 0 0 / 45%); }
fieldset { border: 1px solid var(--line); border-radius: 0.4rem; margin: 0.75rem 0; display: grid; gap: 0.35rem; }
.choice { display: flex; gap: 0.5rem; align-items: center; }
.field { display: grid; gap: 0.25rem; }
@media (max-width: 40rem) {
  header, main { padding-left: 0.75rem; padding-right: 0.75rem; }
  section { padding: 0.75rem; }
  .settings { grid-template-columns: 1fr; }
  .library thead { display: none; }
  .library tr { display: grid; border-bottom: 1px solid var(--line); padding: 0.4rem 0; }
  .library th, .library td { border: 0; padding: 0.15rem 0; }
}
"""#
}
