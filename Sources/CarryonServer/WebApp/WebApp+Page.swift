// Made by Scripts/webapp.py from WebApp/index.html: edit that file, then run the script.
extension WebApp {
    /// The page: its sections, the player and the dialogs. (`WebApp/index.html`)
    static let page = #"""
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Carryon</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="app/app.css">
  <script type="module" src="app/app.js"></script>
</head>
<body>
  <header>
    <h1>Carryon</h1>
    <p>Streams downloaded to this machine, to play offline.</p>
  </header>
  <p id="status" role="status" aria-live="polite"></p>
  <main>
    <section id="streams" aria-labelledby="streams-title">
      <h2 id="streams-title">Streams</h2>
      <div id="streams-list"><p>Loading…</p></div>
      <form id="add-url" class="add-url">
        <label for="url">Add a stream by its URL (HLS or MPEG-DASH)</label>
        <div class="row">
          <input id="url" name="url" type="url" required placeholder="https://cdn.example/show/main.m3u8" autocomplete="url">
          <button type="submit">Choose tracks…</button>
        </div>
      </form>
    </section>
    <section id="player" aria-labelledby="player-title" hidden>
      <div class="card-head">
        <h2 id="player-title">Player</h2>
        <button type="button" id="close-player">Close player</button>
      </div>
      <video id="video" controls playsinline preload="auto" aria-label="Video player"></video>
      <h3>Playback</h3>
      <dl id="kpis" class="kpis"></dl>
      <div id="logs" class="table-scroll"></div>
    </section>
    <section id="library" aria-labelledby="library-title">
      <h2 id="library-title">Library</h2>
      <form id="library-filter" role="search" class="filter">
        <input id="library-search" type="search" placeholder="Search by name" aria-label="Search the library by name" autocomplete="off">
        <select id="library-state" aria-label="Show the assets in one state">
          <option value="">Every state</option>
          <option value="running,waiting">Downloading</option>
          <option value="suspended">Suspended</option>
          <option value="completed">Downloaded</option>
          <option value="failed">Failed</option>
          <option value="cancelled">Cancelled</option>
        </select>
      </form>
      <div id="library-list"></div>
    </section>
    <section id="storage" aria-labelledby="storage-title">
      <h2 id="storage-title">Storage</h2>
      <div id="storage-view"></div>
    </section>
  </main>
  <dialog id="chooser" aria-labelledby="chooser-title">
    <form method="dialog">
      <h2 id="chooser-title">Download</h2>
      <div class="body"></div>
      <div class="buttons">
        <button value="start" class="primary">Start download</button>
        <button value="close" formnovalidate>Close</button>
      </div>
    </form>
  </dialog>
  <dialog id="confirm" aria-labelledby="confirm-title">
    <form method="dialog">
      <h2 id="confirm-title">Are you sure?</h2>
      <div class="body"></div>
      <div class="buttons">
        <button value="confirm" class="primary danger">Confirm</button>
        <button value="cancel">Cancel</button>
      </div>
    </form>
  </dialog>
  <noscript>This page needs JavaScript. The daemon's JSON API is described at api/openapi.json.</noscript>
</body>
</html>
"""#
}
