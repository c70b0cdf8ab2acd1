// Made by Scripts/webapp.py from WebApp/progress.js: edit that file, then run the script.
extension WebApp {
    /// The module that draws progress and loaded time ranges. (`WebApp/progress.js`)
    static let progress = #"""
// A download's progress as people read it: a bar, bytes, rate and time left, and the loaded
// time ranges of each rendition drawn along the presentation (AVFoundation reports progress as
// time ranges; so does Carryon, exactly, as bytes too).
import { h, formatBytes, formatDuration } from "./dom.js";

/** The fraction done, 0 to 1, of an asset (`GET /api/assets`), its live figures merged in. */
export function fractionDone(asset) {
  if (asset.state === "completed") return 1;
  const { bytesDone = 0, bytesExpected = 0 } = asset.progress ?? {};
  return bytesExpected > 0 ? Math.min(1, bytesDone / bytesExpected) : 0;
}

/** Adds a loaded range to `ranges` (sorted, merged where they touch). */
export function addRange(ranges, start, end) {
  const all = [...ranges, { start, end }].sort((a, b) => a.start - b.start);
  const merged = [];
  for (const range of all) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end + 0.001) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/** The progress of `asset`: bar, figures, and a time-range bar per rendition. */
export function progressView(asset) {
  const progress = asset.progress ?? {};
  // A recording of a live stream grows as the stream does: its recorded duration, not a share.
  if (progress.recording && asset.state === "running") return recordingView(asset, progress.recording);
  const fraction = fractionDone(asset);
  const percent = Math.floor(fraction * 100);
  const figures = [`${percent}%`, `${formatBytes(progress.bytesDone ?? asset.bytesOnDisk)} of ${progress.isExact ? "" : "~"}${formatBytes(progress.bytesExpected)}`];
  if (asset.state === "running") {
    if (progress.bytesPerSecond) figures.push(`${formatBytes(Math.round(progress.bytesPerSecond))}/s`);
    if (progress.secondsRemaining !== undefined && progress.secondsRemaining !== null) figures.push(`${formatDuration(progress.secondsRemaining)} left`);
    if (progress.connections) figures.push(`${progress.connections} requests at once`);
  }
  const duration = asset.duration ?? 0;
  const ranges = Object.entries(progress.loadedTimeRanges ?? {}).sort(([a], [b]) => a.localeCompare(b));
  // A download of part of a stream (its timeRange) has the stream's times: drawn from its first
  // segment, the earliest loaded (segments come in playback order, the first ones first).
  const origin = asset.timeRange ? Math.min(...ranges.flatMap(([, loaded]) => loaded.map((range) => range.start))) : 0;
  return h("div", { class: "progress", dataset: { progress: asset.id } },
    h("progress", { max: 1, value: fraction, "aria-label": `Download of ${asset.name}`, "aria-valuetext": `${percent}%` }),
    h("p", { class: "figures" }, figures.join(" · ")),
    duration > 0 && ranges.length > 0 && h("div", { class: "ranges" },
      ranges.map(([rendition, loaded]) => {
        const seconds = loaded.reduce((sum, range) => sum + (range.end - range.start), 0);
        const label = `${rendition}: ${formatDuration(seconds)} of ${formatDuration(duration)} loaded`;
        return h("div", { class: "range-row" },
          h("span", { class: "rendition" }, rendition),
          h("div", { class: "track", role: "img", "aria-label": label, title: label },
            loaded.map((range) => {
              // Set through the style object: the page's policy allows no inline style attribute.
              const span = h("span", { class: "loaded" });
              span.style.left = `${(100 * (range.start - origin)) / duration}%`;
              span.style.width = `${Math.max(0.5, (100 * (range.end - range.start)) / duration)}%`;
              return span;
            })));
      })));
}

/** A recording in progress: the seconds on disk (of the duration asked for), the bytes, how far
 *  behind the live edge, the segments missed. */
function recordingView(asset, recording) {
  const figures = [`recording ${formatDuration(recording.recordedSeconds)}${recording.limit ? ` of ${formatDuration(recording.limit)}` : ""}`,
    formatBytes(asset.progress?.bytesDone ?? asset.bytesOnDisk)];
  if (recording.behindLiveEdge >= 0.5) figures.push(`${formatDuration(recording.behindLiveEdge)} behind the live edge`);
  if (recording.missedSegments > 0) figures.push(`${recording.missedSegments} segment${recording.missedSegments === 1 ? "" : "s"} missed`);
  return h("div", { class: "progress recording", dataset: { progress: asset.id } },
    recording.limit
      ? h("progress", { max: recording.limit, value: Math.min(recording.limit, recording.recordedSeconds), "aria-label": `Recording of ${asset.name}` })
      : h("progress", { "aria-label": `Recording of ${asset.name}` }),
    h("p", { class: "figures" }, figures.join(" · ")));
}
"""#
}
