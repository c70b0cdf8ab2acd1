// The library: every asset with its size, state, expiry and priority (editable), and the
// storage it takes against the quota and the disk's free space, with a purge that shows what
// it would remove before it removes anything.
import { h, replaceChildren, formatBytes, formatDate, formatDuration, announce, confirmDialog } from "./dom.js";
import { call } from "./api.js";
import { assetButtons, stateNames } from "./streams.js";
import { progressView } from "./progress.js";

/** `2026-12-31T18:00:00Z` → the value of a datetime-local input, in the reader's time zone. */
function localInput(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

/** The table of the library's pages read so far (`GET /api/assets?order=newest&limit=…`),
 *  newest first, and a button for the next page when `page.more`. */
export function libraryView(list, page, actions) {
  if (list.length === 0) {
    const filtered = page.filter?.q || page.filter?.state;
    return h("p", { class: "empty" }, filtered ? "No asset matches." : "Nothing downloaded yet.");
  }
  return h("div", { class: "table-scroll" }, h("table", { class: "library" },
    h("caption", {}, `${list.length}${page.more ? "+" : ""} asset${list.length === 1 ? "" : "s"}`),
    h("thead", {}, h("tr", {}, ["Name", "State", "Size", "Expires", "Priority", "Actions"].map((title) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, list.map((asset) => {
      const expiry = h("input", {
        type: "datetime-local", value: localInput(asset.policy?.expiresAt), "aria-label": `Expiry of ${asset.name}`,
        dataset: { key: `expiry-${asset.id}` },
        onchange: (event) => changePolicy(asset, { expiresAt: event.target.value ? new Date(event.target.value).toISOString() : null }),
      });
      const priority = h("select", {
        "aria-label": `Priority of ${asset.name}`, dataset: { key: `priority-${asset.id}` },
        onchange: (event) => changePolicy(asset, { priority: event.target.value }),
      }, ["default", "important"].map((value) => h("option", { value, selected: asset.policy?.priority === value }, value)));
      return h("tr", { dataset: { asset: asset.id } },
        h("th", { scope: "row" }, h("span", { class: "name" }, asset.name), h("span", { class: "id" }, asset.id),
          // A recording of a live stream says so, and what it missed.
          asset.live && h("span", { class: "hint" }, `live recording${asset.live.missedSegments ? `, ${asset.live.missedSegments} segment${asset.live.missedSegments === 1 ? "" : "s"} missed` : ""}`),
          // A download of part of the stream says which.
          !asset.live && asset.timeRange && h("span", { class: "hint" },
            `part ${formatDuration(asset.timeRange.start)}–${asset.timeRange.end === undefined ? "end" : formatDuration(asset.timeRange.end)}`)),
        h("td", {}, stateNames[asset.state] ?? asset.state,
          (asset.state === "running" || asset.state === "suspended") && progressView(asset),
          // Which process downloads it, here or on another machine of the fleet.
          asset.worker && h("span", { class: "hint worker" }, `by ${asset.worker}`)),
        h("td", {}, formatBytes(asset.bytesOnDisk)),
        h("td", {}, expiry, h("span", { class: "hint" }, asset.policy?.expiresAt ? formatDate(asset.policy.expiresAt) : "never")),
        h("td", {}, priority),
        h("td", { class: "buttons" }, assetButtons(asset, asset.name, actions, `asset-${asset.id}`)));
    }))),
    page.more && h("p", {}, h("button", { type: "button", class: "more", dataset: { key: "library-more" }, onclick: () => actions.more() },
      "Show more")));
}

async function changePolicy(asset, change) {
  try {
    await call("PUT", `assets/${asset.id}/policy`, change);
    announce(`${asset.name}: ${"priority" in change ? `priority ${change.priority}` : `expires ${formatDate(change.expiresAt)}`}`);
  } catch (error) {
    announce(`${asset.name}: ${error.text ?? error.message}`, true);
  }
}

/** Megabytes typed in a field → bytes; empty → null (no limit). */
function bytesOf(field) {
  const text = field.value.trim();
  return text === "" ? null : Math.round(Number(text) * 1e6);
}

/** The storage report (`GET /api/storage`) with its settings form and the purge button;
 *  `changed()` is called after anything changes. */
export function storageView(report, changed) {
  const { settings = {}, libraryBytes, freeBytes } = report;
  const quota = settings.quotaBytes;
  const megabytes = (bytes) => (bytes === undefined || bytes === null ? "" : String(bytes / 1e6));
  const quotaField = h("input", { id: "quota", type: "number", min: 0, step: "any", inputmode: "decimal", value: megabytes(quota), placeholder: "no quota" });
  const reserveField = h("input", { id: "reserve", type: "number", min: 0, step: "any", inputmode: "decimal", value: megabytes(settings.minimumFreeBytes), placeholder: "default" });
  const purgeField = h("input", { id: "purge-on-download", type: "checkbox", checked: settings.purgeOnDownload });
  const save = async (event) => {
    event.preventDefault();
    try {
      await call("PUT", "storage", { quotaBytes: bytesOf(quotaField), minimumFreeBytes: bytesOf(reserveField), purgeOnDownload: purgeField.checked });
      announce("Storage settings saved");
      changed();
    } catch (error) {
      announce(error.text ?? error.message, true);
    }
  };
  return [
    h("p", { class: "figures" },
      `The library takes ${formatBytes(libraryBytes)}`, quota ? ` of its ${formatBytes(quota)} quota` : " (no quota)",
      ` · ${formatBytes(freeBytes)} free on disk`),
    quota ? h("meter", { min: 0, max: quota, value: Math.min(libraryBytes, quota), high: quota * 0.9, "aria-label": "Library size against its quota" }) : null,
    h("form", { class: "settings", onsubmit: save },
      h("label", { for: "quota" }, "Quota (MB)"), quotaField,
      h("label", { for: "reserve" }, "Keep free on disk (MB)"), reserveField,
      h("label", { class: "choice" }, purgeField, "Purge to make room when a download needs it"),
      h("div", { class: "buttons" },
        h("button", { type: "submit" }, "Save storage settings"),
        h("button", { type: "button", onclick: () => purge(changed) }, "Purge…"))),
  ];
}

/** Asks the daemon what a purge would remove, shows it, and purges only when confirmed. */
async function purge(changed) {
  let plan;
  try {
    plan = await call("POST", "purge?dryRun=true");
  } catch (error) {
    announce(error.text ?? error.message, true);
    return;
  }
  if (plan.removals.length === 0) {
    announce("Nothing to purge: no asset has expired, and the library keeps within its rules.");
    return;
  }
  const reasons = { expired: "expired", quota: "over the quota", freeSpace: "to keep disk space free" };
  const list = h("ul", {}, plan.removals.map((removal) => h("li", {}, `${removal.id}: ${formatBytes(removal.bytes)}, ${reasons[removal.reason] ?? removal.reason}`)));
  const total = plan.removals.reduce((sum, removal) => sum + removal.bytes, 0);
  if (!(await confirmDialog("Purge these assets?", [list, h("p", {}, `${formatBytes(total)} freed.`)], `Remove ${plan.removals.length}`))) return;
  try {
    const done = await call("POST", "purge");
    announce(`Purged ${done.removals.length} asset${done.removals.length === 1 ? "" : "s"}`);
  } catch (error) {
    announce(error.text ?? error.message, true);
  }
  changed();
}
