#!/bin/bash
# Builds the DocC documentation of HLS, Carryon and CarryonServer into .build/docs/<Module>.doccarchive
# with the toolchain's own `swift symbolgraph-extract` and `docc` (no plugin needed).
#
#   Scripts/build-docs.sh             build all three archives
#   Scripts/build-docs.sh --preview   build, then serve Carryon's at http://localhost:8080 (Ctrl-C stops)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --target CarryonServer >/dev/null
products=$(swift build --show-bin-path)
triple="$(uname -m)-unknown-linux-gnu"
flags=(-I "$products/Modules" -target "$triple" -minimum-access-level public)
for map in "$products"/*.build/module.modulemap $(find .build/checkouts -path '*/Sources/*' -name module.modulemap); do
    [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$map")
done
for include in Sources/CCarryonSystem/include $(find .build/checkouts -path '*/Sources/*' -type d -name include); do
    flags+=(-Xcc "-I$include")
done
mkdir -p .build/docs
for module in HLS Carryon CarryonServer; do
    graphs=.build/docs/graphs-$module
    rm -rf "$graphs" && mkdir -p "$graphs"
    swift symbolgraph-extract -module-name "$module" -output-dir "$graphs" "${flags[@]}"
    catalog=Sources/$module/$module.docc
    if [ ! -d "$catalog" ]; then catalog=.build/docs/$module.docc; mkdir -p "$catalog"; fi
    docc convert "$catalog" --additional-symbol-graph-dir "$graphs" --fallback-display-name "$module" \
        --fallback-bundle-identifier "carryon.$module" --output-path ".build/docs/$module.doccarchive" --warnings-as-errors
    echo "built .build/docs/$module.doccarchive"
done
if [ "${1:-}" = "--preview" ]; then
    docc preview Sources/Carryon/Carryon.docc --additional-symbol-graph-dir .build/docs/graphs-Carryon \
        --fallback-display-name Carryon --fallback-bundle-identifier carryon.Carryon
fi
