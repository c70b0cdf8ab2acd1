// Made by Scripts/webapp.py from WebApp/dom.js: edit that file, then run the script.
extension WebApp {
    /// The module that builds elements, formats figures and runs dialogs. (`WebApp/dom.js`)
    static let dom = #"""
// Building elements, formatting sizes and times, and the page's dialogs.
// Text always goes in as text (never as HTML): stream names and URLs come from catalogs and
// origins, not from us.

/** An element: `h("button", {class: "primary", onclick}, "Download")`. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replaces `container`'s children, keeping the focus on the control with the same
 *  `data-key` when there is one, so that a keyboard user does not lose their place. */
export function replaceChildren(container, ...children) {
  const focused = document.activeElement?.dataset?.key;
  container.replaceChildren(...children.flat().filter((child) => child !== undefined && child !== null && child !== false));
  if (focused) container.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
}

/** 1234567 → "1.2 MB". */
export function formatBytes(bytes) {
  if (bytes === undefined || bytes === null) return "?";
  const units = ["bytes", "kB", "MB", "GB", "TB"];
  let value = bytes, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** 2500000 → "2.5 Mbit/s". */
export function formatBitrate(bitsPerSecond) {
  if (!bitsPerSecond) return "?";
  return bitsPerSecond >= 1e6 ? `${(bitsPerSecond / 1e6).toFixed(1)} Mbit/s` : `${Math.round(bitsPerSecond / 1e3)} kbit/s`;
}

/** 3725 → "1:02:05", 65 → "1:05". */
export function formatDuration(seconds) {
  if (seconds === undefined || seconds === null || !isFinite(seconds)) return "?";
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** A date as the reader's locale writes it, or "never". */
export function formatDate(iso) {
  return iso ? new Date(iso).toLocaleString() : "never";
}

/** Says `message` to screen readers (and shows it in the status line). */
export function announce(message, isError = false) {
  const status = document.getElementById("status");
  status.textContent = message;
  status.classList.toggle("error", isError);
}

/** Asks a question in the page's confirmation dialog; resolves true when confirmed. */
export function confirmDialog(title, body, confirmLabel) {
  const dialog = document.getElementById("confirm");
  dialog.querySelector("h2").textContent = title;
  replaceChildren(dialog.querySelector(".body"), body);
  const button = dialog.querySelector("button[value=confirm]");
  button.textContent = confirmLabel;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
  });
}
"""#
}
