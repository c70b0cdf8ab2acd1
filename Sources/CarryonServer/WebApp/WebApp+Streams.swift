// Made by Scripts/webapp.py from WebApp/streams.js: edit that file, then run the script.
extension WebApp {
    /// The module of the catalog's streams and the download chooser. (`WebApp/streams.js`)
    static let streams = #"""
// The catalog's streams, each with its offline state as Apple's sample app shows it, and the
// choice offered before a download starts: video quality, audio and subtitle languages, each
// with its size (what PRESTOplay's downloader offers; WWDC's "fast download" and "best quality").
import { h, replaceChildren, formatBytes, formatBitrate, announce } from "./dom.js";
import { call } from "./api.js";
import { progressView } from "./progress.js";

/** How a state reads beside a stream. */
export const stateNames = {
  "not-downloaded": "Not downloaded", waiting: "Waiting", running: "Downloading", suspended: "Suspended",
  completed: "Downloaded", failed: "Failed", cancelled: "Cancelled",
};

/** The buttons an asset's state allows, in the order they show: Play, Download, Cancel,
 *  Resume, Delete. `actions` carries out each. */
export function assetButtons(asset, name, actions, key) {
  const state = asset?.state ?? "not-downloaded";
  const playable = asset?.cache?.isPlayableOffline || state === "completed";
  const button = (label, onclick, primary) =>
    h("button", { type: "button", class: primary ? "primary" : undefined, dataset: { key: `${key}-${label}` },
      "aria-label": `${label} ${name}`, onclick }, label);
  return [
    playable && button("Play", () => actions.play(asset.id), true),
    (state === "not-downloaded" || state === "cancelled") && actions.download && button("Download", () => actions.download(), true),
    (state === "running" || state === "waiting") && button("Cancel", () => actions.cancel(asset.id)),
    (state === "suspended" || state === "failed") && button("Resume", () => actions.resume(asset.id)),
    ["completed", "suspended", "failed"].includes(state) && actions.verify && button("Verify", () => actions.verify(asset.id)),
    asset && button("Delete", () => actions.remove(asset.id, name)),
  ];
}

/** What the chooser says of the fleet's workers alive now (`GET api/fleet`). */
function fleetText(workers) {
  if (workers.length === 0) return "No worker runs now: a download queued for the fleet waits until one starts.";
  // A process of an earlier release does not say whether it works for the fleet: it may.
  const names = workers.slice(0, 3).map((worker) => worker.description + (worker.earlierRelease ? " (an earlier release: it may)" : "")).join(", ");
  const more = workers.length > 3 ? ` and ${workers.length - 3} more` : "";
  return `${workers.length === 1 ? "1 worker runs" : `${workers.length} workers run`} now: ${names}${more}.`;
}

/** A stream's state in words: "Downloading 42%", "Downloaded · 31 MB". */
function stateLine(asset) {
  if (!asset) return stateNames["not-downloaded"];
  const name = stateNames[asset.state] ?? asset.state;
  if (asset.state === "completed") return `${name} · ${formatBytes(asset.bytesOnDisk)}`;
  if (asset.state === "failed") return `${name}: ${asset.error ?? "unknown error"}`;
  const { bytesDone = 0, bytesExpected = 0 } = asset.progress ?? {};
  return bytesExpected > 0 ? `${name} ${Math.floor((100 * bytesDone) / bytesExpected)}%` : name;
}

/** The catalog's streams (`GET /api/catalog`) with the assets they became. */
export function streamsView(catalog, assets, actions) {
  if (catalog.length === 0) {
    return h("p", { class: "empty" }, "No catalog: start carryon serve with --catalog Streams.plist, or add a URL below.");
  }
  return h("ul", { class: "cards" }, catalog.map((entry, index) => {
    const asset = entry.id ? assets.get(entry.id) : undefined;
    const playable = entry.playableOffline;
    return h("li", { class: "card", dataset: { stream: entry.name } },
      h("div", { class: "card-head" },
        h("h3", {}, entry.name),
        playable && h("span", { class: "badge" }, "Playable offline")),
      h("p", { class: "url" }, entry.url),
      h("p", { class: "state", dataset: { state: asset?.state ?? "not-downloaded" } }, stateLine(asset)),
      asset && asset.state !== "completed" && asset.state !== "cancelled" && progressView(asset),
      h("div", { class: "buttons" }, assetButtons(asset, entry.name,
        { ...actions, download: () => openChooser({ catalog: entry.name }, entry.name, actions.started) }, `stream-${index}`)));
  }));
}

/** The choices of a stream report (`GET /api/streams`), in the same words for every format:
 *  `variants` best first, one `audio` and `subtitles` track per language, each with its `size`. */
export function tracksOf(report) {
  const { variants = [], audio = [], subtitles = [], size } = report.choices ?? {};
  return { variants, audio, subtitles, size };
}

function sizeText(size) {
  return size ? `${size.exact ? "" : "~"}${formatBytes(size.bytes)}` : "size unknown";
}

/** The seconds `text` gives, as `carryon download --start` reads a time: `90`, `90.5`, `1:30`,
 *  `1:02:03.5` (minutes and seconds below 60 after the first field); null when it is empty, NaN
 *  when it is not a time. */
export function secondsOf(text) {
  const fields = String(text).trim().split(":");
  if (fields.length === 1 && fields[0] === "") return null;
  if (fields.length > 3) return NaN;
  let total = 0;
  for (const [index, field] of fields.entries()) {
    if (!(index === fields.length - 1 ? /^\d+(\.\d+)?$/ : /^\d+$/).test(field)) return NaN;
    const value = Number(field);
    if (index > 0 && value >= 60) return NaN;
    total = total * 60 + value;
  }
  return total;
}

/** Opens the chooser for `stream` (`{catalog: NAME}` or `{url: URL}`): reads its tracks, offers
 *  them, and starts the download as chosen; `started(asset)` is told. */
export async function openChooser(stream, title, started) {
  const dialog = document.getElementById("chooser");
  const form = dialog.querySelector("form");
  dialog.querySelector("h2").textContent = `Download ${title}`;
  const body = dialog.querySelector(".body");
  const start = dialog.querySelector("button[value=start]");
  start.disabled = true;
  replaceChildren(body, h("p", { role: "status" }, "Reading the stream's tracks…"));
  dialog.showModal();
  // Who would run a download queued for the fleet, asked beside the tracks and told when it
  // comes: the choice is offered before it, and without it.
  const fleet = call("GET", "fleet").catch(() => null);
  let tracks;
  try {
    const query = stream.catalog ? `catalog=${encodeURIComponent(stream.catalog)}` : `url=${encodeURIComponent(stream.url)}`;
    tracks = tracksOf(await call("GET", `streams?${query}`));
  } catch (error) {
    replaceChildren(body, h("p", { class: "error", role: "alert" }, `This stream cannot be read: ${error.text ?? error.message}`));
    return;
  }
  const radio = (value, label, checked) => h("label", { class: "choice" },
    h("input", { type: "radio", name: "quality", value, checked }), label);
  const box = (name, track) => h("label", { class: "choice" },
    h("input", { type: "checkbox", name, value: track.language, checked: name === "audio" && track.isDefault }),
    `${track.name ?? track.language} (${track.language}) · ${sizeText(track.size)}`);
  const variants = tracks.variants;
  const workers = h("p", { class: "hint", id: "fleet-workers" }, "Asking who works for the fleet…");
  fleet.then((answer) => { if (answer) workers.textContent = fleetText(answer.workers); else workers.remove(); });
  const describe = (variant) => [variant.resolution, formatBitrate(variant.bandwidth), variant.codecs, sizeText(variant.size)].filter(Boolean).join(" · ");
  replaceChildren(body,
    h("label", { class: "field" }, "Name", h("input", { name: "name", value: title, autocomplete: "off" })),
    variants.length > 0 && h("fieldset", {},
      h("legend", {}, "Video quality"),
      radio("best", `Best quality: ${describe(variants[0])}`, true),
      variants.length > 1 && radio("fast", `Fast download: ${describe(variants[variants.length - 1])}`, false),
      variants.length > 2 && variants.map((variant, index) => radio(`variant-${index}`, describe(variant), false))),
    variants.length === 0 && h("p", {}, `One rendition · ${sizeText(tracks.size)}`),
    tracks.audio.length > 0 && h("fieldset", {}, h("legend", {}, "Audio"), tracks.audio.map((track) => box("audio", track))),
    tracks.subtitles.length > 0 && h("fieldset", {}, h("legend", {}, "Subtitles"), tracks.subtitles.map((track) => box("subtitles", track))),
    h("fieldset", {}, h("legend", {}, "Part of the stream"),
      h("label", { class: "field" }, "From", h("input", { name: "from", placeholder: "the start (or 10:00)", autocomplete: "off", inputmode: "decimal" })),
      h("label", { class: "field" }, "Length", h("input", { name: "length", placeholder: "to the end (or 2:00)", autocomplete: "off", inputmode: "decimal" }))),
    // `carryon enqueue`'s choice: the fleet's first worker with room downloads it, on this
    // machine or another that shares the library; it waits until one does.
    h("fieldset", {}, h("legend", {}, "Who downloads it"),
      h("label", { class: "choice" }, h("input", { type: "checkbox", name: "fleet", value: "yes", "aria-describedby": "fleet-workers" }),
        "Queue it for the fleet: a worker (carryon worker, serve --worker) downloads it, here or on another machine"),
      workers));
  start.disabled = false;
  start.focus();
  form.onsubmit = async (event) => {
    if (event.submitter?.value !== "start") return;
    event.preventDefault();
    const data = new FormData(form);
    const request = { ...stream, name: data.get("name") || title };
    const quality = data.get("quality");
    const bandwidth = (variant) => variant?.bandwidth;
    if (quality === "fast") request.maxBitrate = bandwidth(variants[variants.length - 1]);
    if (quality?.startsWith("variant-")) {
      const chosen = variants[Number(quality.slice("variant-".length))];
      request.minBitrate = bandwidth(chosen);
      request.maxBitrate = bandwidth(chosen);
    }
    if (tracks.audio.length > 0) request.audio = data.getAll("audio").length > 0 ? data.getAll("audio") : "none";
    if (tracks.subtitles.length > 0) request.subtitles = data.getAll("subtitles").length > 0 ? data.getAll("subtitles") : "none";
    // Only the segments that cover the part, as `carryon download --start/--duration` takes them.
    body.querySelector("p.error")?.remove();
    const from = secondsOf(data.get("from") ?? ""), length = secondsOf(data.get("length") ?? "");
    for (const [field, value, text] of [["From", from, data.get("from")], ["Length", length, data.get("length")]]) {
      if (Number.isNaN(value) || (field === "Length" && value === 0)) {
        body.append(h("p", { class: "error", role: "alert" }, `${field} "${text}" is not a time such as 90, 1:30 or 1:02:03.5`));
        return;
      }
    }
    if (from !== null) request.start = from;
    if (length !== null) request.duration = length;
    if (data.get("fleet")) request.fleet = true;
    start.disabled = true;
    try {
      const asset = await call("POST", "assets", request);
      dialog.close();
      announce(request.fleet ? `Queued ${asset.name} for the fleet's workers` : `Downloading ${asset.name}`);
      started?.(asset);
    } catch (error) {
      start.disabled = false;
      body.append(h("p", { class: "error", role: "alert" }, `The download did not start: ${error.text ?? error.message}`));
    }
  };
}
"""#
}
