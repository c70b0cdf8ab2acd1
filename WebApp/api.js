// Requests to the daemon's JSON API (below the page's own URL, which carries the token) and
// its event stream.

/** The page's base URL: `http://host:port/<token>/`. */
export const base = new URL(".", document.baseURI).href;

/** An API error: the daemon's `{error: {code, message, hint}}`. */
export class APIError extends Error {
  constructor(status, error) {
    super(error?.message ?? `the daemon answered ${status}`);
    this.status = status;
    this.code = error?.code;
    this.hint = error?.hint;
  }

  /** The message and the hint, for people. */
  get text() { return this.hint ? `${this.message}. ${this.hint}` : this.message; }
}

/** `method` on `api/<path>` with `body` as JSON; the answer's JSON (null for 204). */
export async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(new URL(`api/${path}`, base), options);
  if (response.status === 204) return null;
  const json = await response.json().catch(() => null);
  if (!response.ok) throw new APIError(response.status, json?.error);
  return json;
}

/** A page of a list (`GET api/<path>`): its items, and the path of the next page the
 *  answer's `Link: <…>; rel="next"` header names (null on the last page). */
export async function callPage(path) {
  const response = await fetch(new URL(`api/${path}`, base));
  const json = await response.json().catch(() => null);
  if (!response.ok) throw new APIError(response.status, json?.error);
  const link = /^<([^>]*)>;\s*rel="next"$/.exec(response.headers.get("Link") ?? "");
  return { items: json ?? [], next: link ? link[1] : null };
}

/** The URL a player opens for an asset. */
export function playlistURL(id) { return new URL(`${encodeURIComponent(id)}/main.m3u8`, base).href; }

/** Calls `onEvent(record)` for every download event of every task, reconnecting (and
 *  catching up from the last event seen) when the connection drops; `onOpen()` each time it
 *  (re)connects, so the caller can refresh what it shows. */
export function subscribe(onEvent, onOpen) {
  const source = new EventSource(new URL("api/events", base));
  source.addEventListener("open", () => onOpen?.());
  const kinds = ["state", "selection", "location", "progress", "time-range", "rendition-completed", "finished", "failed", "warnings"];
  for (const kind of kinds) {
    source.addEventListener(kind, (event) => onEvent(JSON.parse(event.data)));
  }
  return source;
}
