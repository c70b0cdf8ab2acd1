// Made by Scripts/webapp.py from WebApp/player.js: edit that file, then run the script.
extension WebApp {
    /// The module of the player, its KPIs and logs. (`WebApp/player.js`)
    static let player = #"""
// The player: a <video> playing an asset through the playback server (Chromium and Safari play
// HLS natively), beside the KPIs the server computes from its access log (what `carryon show`
// reports: startup time, bytes and segments served, indicated bitrate), the browser's own
// counts, and the asset's access and error logs.
import { h, replaceChildren, formatBytes, formatBitrate, formatDuration } from "./dom.js";
import { call, playlistURL } from "./api.js";

let playing = null;  // the asset id playing
let timer = null;

/** Plays asset `id` (named `name`) in the player section, and keeps its figures fresh. */
export function openPlayer(id, name) {
  const section = document.getElementById("player");
  const video = document.getElementById("video");
  section.hidden = false;
  document.getElementById("player-title").textContent = `Playing ${name}`;
  playing = id;
  video.src = playlistURL(id);
  video.play().catch(() => { /* the controls let the reader start it */ });
  section.scrollIntoView({ block: "start" });
  video.focus();
  clearInterval(timer);
  timer = setInterval(refreshFigures, 2000);
  refreshFigures();
}

/** Stops playing and hides the player. */
export function closePlayer() {
  const video = document.getElementById("video");
  video.pause();
  video.removeAttribute("src");
  video.load();
  document.getElementById("player").hidden = true;
  clearInterval(timer);
  playing = null;
}

/** The asset playing, if any. */
export function playingID() { return playing; }

function row(name, value) {
  return h("div", {}, h("dt", {}, name), h("dd", {}, value));
}

async function refreshFigures() {
  const id = playing;
  if (!id) return;
  const video = document.getElementById("video");
  let asset, logs;
  try {
    [asset, logs] = await Promise.all([call("GET", `assets/${id}`), call("GET", `assets/${id}/logs`)]);
  } catch {
    return;  // deleted meanwhile, or the daemon stopped: the next tick tries again
  }
  if (id !== playing) return;
  const summary = asset.playback ?? {};
  const quality = video.getVideoPlaybackQuality?.();
  replaceChildren(document.getElementById("kpis"),
    row("Position", `${formatDuration(video.currentTime)} of ${formatDuration(asset.duration)}`),
    row("Startup time", summary.startupSeconds === undefined ? "?" : `${summary.startupSeconds.toFixed(3)} s`),
    row("Bytes served", formatBytes(summary.bytesServed ?? 0)),
    row("Segments served", String(summary.segmentsServed ?? 0)),
    row("Indicated bitrate", formatBitrate(summary.timeWeightedIndicatedBitrate)),
    row("Playback sessions", String(summary.sessions ?? 0)),
    quality && row("Frames decoded (dropped)", `${quality.totalVideoFrames} (${quality.droppedVideoFrames})`));
  const table = (entries, columns, caption) => h("table", {},
    h("caption", {}, `${caption} (${entries.length})`),
    h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, entries.slice(-12).reverse().map((entry) =>
      h("tr", {}, columns.map(([, field]) => h("td", {}, entry[field] ?? "-"))))));
  replaceChildren(document.getElementById("logs"),
    table(logs.access ?? [], [["Time", "time"], ["Event", "x-event"], ["URI", "cs-uri"], ["Status", "sc-status"], ["Bytes", "sc-bytes"]], "Access log"),
    table(logs.error ?? [], [["Time", "time"], ["URI", "cs-uri"], ["Status", "sc-status"], ["Error", "x-error-code"], ["Comment", "x-comment"]], "Error log"));
}
"""#
}
