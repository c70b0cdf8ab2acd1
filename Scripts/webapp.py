#!/usr/bin/env python3
"""Writes Sources/CarryonServer/WebApp/WebApp+*.swift from the web app's files in WebApp/: each
file becomes a string in the binary, so a copied `carryon` serves the app with no file beside it
and no build step for the page. Edit the files in WebApp/, run `python3 Scripts/webapp.py`, and
`WebAppFilesTests` checks that the binary holds exactly what WebApp/ holds."""
import os

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# file in WebApp/ -> (the WebApp property, the Swift file's suffix, what it is)
files = {
    "index.html": ("page", "Page", "The page: its sections, the player and the dialogs."),
    "app.css": ("style", "Style", "The page's style sheet."),
    "app.js": ("main", "Main", "The app's entry module: state, event stream, rendering."),
    "api.js": ("client", "Client", "The module that calls the daemon's API."),
    "dom.js": ("dom", "DOM", "The module that builds elements, formats figures and runs dialogs."),
    "streams.js": ("streams", "Streams", "The module of the catalog's streams and the download chooser."),
    "progress.js": ("progress", "Progress", "The module that draws progress and loaded time ranges."),
    "player.js": ("player", "Player", "The module of the player, its KPIs and logs."),
    "library.js": ("library", "Library", "The module of the library, storage and purge."),
}
for name, (property, suffix, summary) in files.items():
    text = open(os.path.join(root, "WebApp", name), encoding="utf-8").read()
    assert '"""#' not in text and "\\#" not in text, f"{name} holds text a Swift raw string cannot"
    swift = f'''// Made by Scripts/webapp.py from WebApp/{name}: edit that file, then run the script.
extension WebApp {{
    /// {summary} (`WebApp/{name}`)
    static let {property} = #"""
{text.rstrip(chr(10))}
"""#
}}
'''
    open(os.path.join(root, "Sources", "CarryonServer", "WebApp", f"WebApp+{suffix}.swift"), "w", encoding="utf-8").write(swift)
