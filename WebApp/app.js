// The web app of `carryon serve`: the catalog's streams to download and play, progress live
// from the daemon's event stream, the player, the library and its storage.
import { h, replaceChildren, announce, confirmDialog } from "./dom.js";
import { call, subscribe } from "./api.js";
import { streamsView, openChooser } from "./streams.js";
import { libraryView, storageView } from "./library.js";
import { addRange } from "./progress.js";
import { openPlayer, closePlayer, playingID } from "./player.js";

const state = { assets: new Map(), catalog: [], storage: null };

/** What the buttons do, wherever they are. */
const actions = {
  play(id) { openPlayer(id, state.assets.get(id)?.name ?? id); },
  cancel(id) { return act(() => call("POST", `assets/${id}/cancel`), `Cancelled ${nameOf(id)}`); },
  resume(id) { return act(() => call("POST", `assets/${id}/resume`), `Resuming ${nameOf(id)}`); },
  async remove(id, name) {
    const body = h("p", {}, "Its downloaded files, keys and logs are removed from this machine.");
    if (!(await confirmDialog(`Delete ${name}?`, body, "Delete"))) return;
    if (playingID() === id) closePlayer();
    await act(() => call("DELETE", `assets/${id}`), `Deleted ${name}`);
  },
  started(asset) {
    state.assets.set(asset.id, asset);
    refresh();
  },
};

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
/** Reads the assets, the catalog and the storage report again, and shows them. */
async function refresh() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    do {
      again = false;
      try {
        const [assets, catalog, storage] = await Promise.all([call("GET", "assets"), call("GET", "catalog"), call("GET", "storage")]);
        state.assets = new Map(assets.map((asset) => [asset.id, asset]));
        state.catalog = catalog;
        state.storage = storage;
        render();
      } catch (error) {
        announce(`The daemon does not answer: ${error.text ?? error.message}`, true);
      }
    } while (again);
    refreshing = null;
  })();
  return refreshing;
}

/** Whether a field inside `container` is being edited: its section waits. */
function editing(container) {
  const active = document.activeElement;
  return container.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT");
}

function render() {
  replaceChildren(document.getElementById("streams-list"), streamsView(state.catalog, state.assets, actions));
  const library = document.getElementById("library-list");
  if (!editing(library)) replaceChildren(library, libraryView(state.assets, actions));
  const storage = document.getElementById("storage-view");
  if (state.storage && !editing(storage)) replaceChildren(storage, storageView(state.storage, refresh));
}

let frame = null;
/** Renders at the next frame, once however many events arrive before it. */
function renderSoon() {
  if (frame === null) frame = requestAnimationFrame(() => { frame = null; render(); });
}

/** An event of the daemon's stream: progress and time ranges change what is shown; a new
 *  state, selection or finish is read again from the API. */
function onEvent(record) {
  const asset = state.assets.get(record.id);
  // An asset planned after it was last read has a duration to read now (the time ranges need it).
  if (asset && !asset.duration && (record.event === "progress" || record.event === "time-range")) refresh();
  switch (record.event) {
    case "progress":
      if (!asset) return refresh();
      asset.progress = { ...asset.progress, bytesDone: record.bytesDone, bytesExpected: record.bytesExpected,
        bytesPerSecond: record.bytesPerSecond, secondsRemaining: record.secondsRemaining, connections: record.connections };
      asset.bytesOnDisk = Math.max(asset.bytesOnDisk ?? 0, record.bytesDone ?? 0);
      return renderSoon();
    case "time-range": {
      if (!asset) return refresh();
      const ranges = { ...(asset.progress?.loadedTimeRanges ?? {}) };
      ranges[record.rendition] = addRange(ranges[record.rendition] ?? [], record.start, record.end);
      asset.progress = { ...asset.progress, loadedTimeRanges: ranges };
      return renderSoon();
    }
    case "failed":
      announce(`${nameOf(record.id)} failed: ${record.error}`, true);
      return refresh();
    case "finished":
      announce(`${nameOf(record.id)} is downloaded`);
      return refresh();
    default:
      return refresh();
  }
}

document.getElementById("add-url").addEventListener("submit", (event) => {
  event.preventDefault();
  const url = document.getElementById("url").value.trim();
  const name = decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).slice(-2, -1)[0] ?? url);
  openChooser({ url }, name, actions.started);
});
document.getElementById("close-player").addEventListener("click", closePlayer);
subscribe(onEvent, refresh);
refresh();
