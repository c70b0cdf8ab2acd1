// The web app of `carryon serve`: the catalog's streams to download and play, progress live
// from the daemon's event stream, the player, the library and its storage.
import { h, replaceChildren, announce, confirmDialog, formatBytes } from "./dom.js";
import { call, callPage, subscribe } from "./api.js";
import { streamsView, openChooser } from "./streams.js";
import { libraryView, storageView } from "./library.js";
import { addRange } from "./progress.js";
import { openPlayer, closePlayer, playingID } from "./player.js";

// `assets`: every asset read so far, by id (the library's pages, the catalog's, those events
// named); `shown`: the ids of the library's pages, newest first; `next`: the next page's path.
const state = { assets: new Map(), shown: [], next: null, filter: { q: "", state: "" }, catalog: [], storage: null };

/** The most assets a page asks for. */
const pageSize = 100;

/** What the buttons do, wherever they are. */
const actions = {
  play(id) { openPlayer(id, state.assets.get(id)?.name ?? id); },
  cancel(id) { return act(() => call("POST", `assets/${id}/cancel`), `Cancelled ${nameOf(id)}`); },
  resume(id) { return act(() => call("POST", `assets/${id}/resume`), `Resuming ${nameOf(id)}`); },
  /** Checks the asset's files (`POST …/verify`); damage found is listed, with a Repair button
   *  that mends it from the origin. */
  async verify(id) {
    const name = nameOf(id);
    let result;
    try {
      result = await call("POST", `assets/${id}/verify`);
    } catch (error) {
      return announce(error.text ?? error.message, true);
    }
    const { report } = result;
    const checked = `${report.files} files checked, ${formatBytes(report.bytes)} read`;
    // Reports of an earlier release have no manifests.
    const manifests = report.manifests ?? [];
    const count = report.damage.length + manifests.length;
    if (count === 0) return announce(`${name} is intact: ${checked}`);
    const damaged = [
      ...manifests.map((damage) => `manifest: ${damage.file} — ${damage.message}`),
      ...report.damage.map((damage) => `${damage.kind}: ${damage.file} — ${damage.message}`),
    ];
    const lines = damaged.slice(0, 20).map((line) => h("li", {}, line));
    const more = damaged.length > 20 ? h("p", {}, `and ${damaged.length - 20} more`) : null;
    const body = h("div", {}, h("p", {}, `${count} damaged (${checked}):`), h("ul", { class: "damage" }, lines), more,
      h("p", {}, "Repair fetches exactly these files again from where they were downloaded, and writes damaged manifests again."));
    if (!(await confirmDialog(`${name}: ${count} damaged`, body, "Repair"))) {
      return announce(`${name}: ${count} damaged, not repaired`, true);
    }
    await act(() => call("POST", `assets/${id}/verify?repair=true`), `Repairing ${name} from the origin`);
  },
  async remove(id, name) {
    const body = h("p", {}, "Its downloaded files, keys and logs are removed from this machine.");
    if (!(await confirmDialog(`Delete ${name}?`, body, "Delete"))) return;
    if (playingID() === id) closePlayer();
    await act(() => call("DELETE", `assets/${id}`), `Deleted ${name}`);
  },
  started(asset) {
    state.assets.set(asset.id, asset);
    if (!state.shown.includes(asset.id)) state.shown.unshift(asset.id);
    refresh();
  },
  /** The library's filter changed: its first page again. */
  filter(change) {
    state.filter = { ...state.filter, ...change };
    loadLibrary(pageSize);
  },
  /** The library's next page, below what it shows. */
  async more() {
    if (!state.next) return;
    try {
      const page = await callPage(state.next);
      for (const asset of page.items) state.assets.set(asset.id, asset);
      state.shown = [...state.shown, ...page.items.map((asset) => asset.id).filter((id) => !state.shown.includes(id))];
      state.next = page.next;
      renderSoon();
    } catch (error) {
      announce(error.text ?? error.message, true);
    }
  },
};

/** The library's first `count` assets by its filter (a page, as many as were shown). */
async function loadLibrary(count) {
  const query = new URLSearchParams({ order: "newest", limit: String(Math.min(10000, Math.max(pageSize, count))) });
  if (state.filter.q) query.set("q", state.filter.q);
  if (state.filter.state) query.set("state", state.filter.state);
  try {
    const page = await callPage(`assets?${query}`);
    for (const asset of page.items) state.assets.set(asset.id, asset);
    state.shown = page.items.map((asset) => asset.id);
    state.next = page.next;
    renderSoon();
  } catch (error) {
    announce(`The daemon does not answer: ${error.text ?? error.message}`, true);
  }
}

/** Reads asset `id` again (its row changed: an event named it), and shows it; a new one
 *  goes on top of the library, one deleted leaves it. */
async function refreshAsset(id) {
  try {
    const asset = await call("GET", `assets/${encodeURIComponent(id)}`);
    state.assets.set(id, asset);
    const { q, state: wanted } = state.filter;
    if (!state.shown.includes(id) && !q && !wanted) state.shown.unshift(id);
  } catch (error) {
    if (error.status !== 404) return announce(error.text ?? error.message, true);
    state.assets.delete(id);
    state.shown = state.shown.filter((shown) => shown !== id);
  }
  renderSoon();
}

function nameOf(id) { return state.assets.get(id)?.name ?? id; }

async function act(request, message) {
  try {
    await request();
    announce(message);
  } catch (error) {
    announce(error.text ?? error.message, true);
  }
  await refresh();
}

let refreshing = null, again = false;
/** Reads the library's pages shown, the catalog (with the assets it names) and the storage
 *  report again, each shown as it arrives. */
async function refresh() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    do {
      again = false;
      await Promise.all([loadLibrary(state.shown.length), loadCatalog(), loadStorage()]);
    } while (again);
    refreshing = null;
  })();
  return refreshing;
}

async function loadCatalog() {
  try {
    state.catalog = await call("GET", "catalog");
    // The assets its streams became, when the library's pages do not hold them.
    await Promise.all(state.catalog.filter((entry) => entry.id && !state.assets.has(entry.id)).map(async (entry) => {
      state.assets.set(entry.id, await call("GET", `assets/${encodeURIComponent(entry.id)}`));
    }));
    renderSoon();
  } catch (error) {
    announce(`The daemon does not answer: ${error.text ?? error.message}`, true);
  }
}

async function loadStorage() {
  try {
    state.storage = await call("GET", "storage");
    renderSoon();
  } catch (error) {
    announce(`The daemon does not answer: ${error.text ?? error.message}`, true);
  }
}

/** Whether a field inside `container` is being edited: its section waits. */
function editing(container) {
  const active = document.activeElement;
  return container.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT");
}

function render() {
  replaceChildren(document.getElementById("streams-list"), streamsView(state.catalog, state.assets, actions));
  const library = document.getElementById("library-list");
  if (!editing(library)) {
    const shown = state.shown.map((id) => state.assets.get(id)).filter(Boolean);
    replaceChildren(library, libraryView(shown, { filter: state.filter, more: state.next !== null }, actions));
  }
  const storage = document.getElementById("storage-view");
  if (state.storage && !editing(storage)) replaceChildren(storage, storageView(state.storage, refresh));
}

let frame = null;
/** Renders at the next frame, once however many events or answers arrive before it. */
function renderSoon() {
  if (frame === null) frame = requestAnimationFrame(() => { frame = null; render(); });
}

/** An event of the daemon's stream: progress and time ranges change what is shown; a new
 *  state, selection or finish reads that asset again from the API (and the storage report,
 *  once it finished), never the whole library. */
function onEvent(record) {
  const asset = state.assets.get(record.id);
  // An asset planned after it was last read has a duration to read now (the time ranges need it).
  if (asset && !asset.duration && (record.event === "progress" || record.event === "time-range")) refreshAsset(record.id);
  switch (record.event) {
    case "progress":
      if (!asset) return refreshAsset(record.id);
      asset.progress = { ...asset.progress, bytesDone: record.bytesDone, bytesExpected: record.bytesExpected,
        bytesPerSecond: record.bytesPerSecond, secondsRemaining: record.secondsRemaining, connections: record.connections,
        recording: record.recording };
      asset.bytesOnDisk = Math.max(asset.bytesOnDisk ?? 0, record.bytesDone ?? 0);
      return renderSoon();
    case "time-range": {
      if (!asset) return refreshAsset(record.id);
      const ranges = { ...(asset.progress?.loadedTimeRanges ?? {}) };
      ranges[record.rendition] = addRange(ranges[record.rendition] ?? [], record.start, record.end);
      asset.progress = { ...asset.progress, loadedTimeRanges: ranges };
      return renderSoon();
    }
    case "failed":
      announce(`${nameOf(record.id)} failed: ${record.error}`, true);
      loadStorage();
      return refreshAsset(record.id);
    case "finished":
      announce(`${nameOf(record.id)} is downloaded`);
      loadStorage();
      return refreshAsset(record.id);
    default:
      return refreshAsset(record.id);
  }
}

document.getElementById("add-url").addEventListener("submit", (event) => {
  event.preventDefault();
  const url = document.getElementById("url").value.trim();
  const name = decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).slice(-2, -1)[0] ?? url);
  openChooser({ url }, name, actions.started);
});
document.getElementById("close-player").addEventListener("click", closePlayer);
// The library's search and state filter, both read at each change: its first page again, as
// the reader types (a pause of 200 ms) or picks a state (at once).
let typing = null;
function filterLibrary() {
  clearTimeout(typing);
  actions.filter({ q: document.getElementById("library-search").value.trim(), state: document.getElementById("library-state").value });
}
document.getElementById("library-search").addEventListener("input", () => {
  clearTimeout(typing);
  typing = setTimeout(filterLibrary, 200);
});
document.getElementById("library-state").addEventListener("change", filterLibrary);
document.getElementById("library-filter").addEventListener("submit", (event) => event.preventDefault());
// The stream's first opening finds this first read under way; each reconnection reads again.
let opened = false;
subscribe(onEvent, () => {
  if (opened) refresh();
  opened = true;
});
refresh();
