#!/usr/bin/env bash
# Builds the lab as a SCORM 1.2 package for course platforms (Moodle, Canvas, Open edX, …):
# the release site (the same relative URLs as `make dist`) plus an imsmanifest.xml with one
# SCO launching index.html and the quiz's mastery score, zipped into
# dist-scorm/mrtr-lab-scorm12.zip. Usage: scripts/scorm.sh [SITE_DIR]  (default: build one)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=dist-scorm
SITE=${1:-}
if [ -z "$SITE" ]; then
  SITE=$OUT/site
  rm -rf "$SITE"
  trunk build --release --public-url ./ --dist "$SITE"
fi
[ -f "$SITE/index.html" ] || { echo "scorm: $SITE/index.html is missing"; exit 1; }
# The mastery score is the page's own (crates/mrtr-lab-state/src/scorm.rs), so the LMS and the page agree.
MASTERY=$(sed -n 's/^pub const MASTERY_PERCENT: u32 = \([0-9]*\);$/\1/p' crates/mrtr-lab-state/src/scorm.rs)
[ -n "$MASTERY" ] || { echo "scorm: MASTERY_PERCENT not found in crates/mrtr-lab-state/src/scorm.rs"; exit 1; }
mkdir -p "$OUT"
python3 - "$SITE" "$MASTERY" "$OUT/mrtr-lab-scorm12.zip" <<'PY'
import os, sys, zipfile
from xml.sax.saxutils import quoteattr
site, mastery, out = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted(
    os.path.relpath(os.path.join(d, f), site).replace(os.sep, "/")
    for d, _, fs in os.walk(site) for f in fs
)
files = [f for f in files if f != "imsmanifest.xml"]
listed = "\n".join(f"        <file href={quoteattr(f)}/>" for f in files)
manifest = f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="mrtr-lab" version="1.0"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="mrtr-lab-org">
    <organization identifier="mrtr-lab-org">
      <title>MRTR Lab</title>
      <item identifier="mrtr-lab-item" identifierref="mrtr-lab-sco" isvisible="true">
        <title>MRTR Lab: how an MCP server asks for input (multi round-trip requests)</title>
        <adlcp:masteryscore>{mastery}</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="mrtr-lab-sco" type="webcontent" adlcp:scormtype="sco" href="index.html">
{listed}
    </resource>
  </resources>
</manifest>
"""
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("imsmanifest.xml", manifest)
    for f in files:
        z.write(os.path.join(site, f), f)
print(f"scorm: {out} ({len(files)} files and imsmanifest.xml, mastery score {mastery})")
PY
