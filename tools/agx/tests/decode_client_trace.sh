#!/usr/bin/env bash
# decode_client_trace.sh AGX TRACE: the trace the shim's C client left
# (AGX_TRACE) decodes: text and JSON agree on the submit count, compute and
# render commands are there, and each submit decodes alone.
set -u
agx=$1
trace=$2
[ -s "$trace" ] || { echo "no trace at $trace"; exit 1; }
text=$("$agx" decode "$trace") || { echo "agx decode failed"; exit 1; }
json=$("$agx" decode "$trace" --json) || { echo "agx decode --json failed"; exit 1; }
n_text=$(grep -c '^Submit ' <<<"$text")
n_json=$(grep -o "\"kind\":\"root\"" <<<"$json" | wc -l)
echo "submits: text $n_text, json $n_json"
[ "$n_text" -ge 3 ] && [ "$n_text" = "$n_json" ] || { echo "submit counts differ or too few"; exit 1; }
grep -q 'Command #0 compute' <<<"$text" || { echo "no compute command"; exit 1; }
grep -q 'Command #0 render' <<<"$text" || { echo "no render command"; exit 1; }
grep -q 'CDM stream @ 0x1000000' <<<"$text" || { echo "no CDM stream at the client's buffer"; exit 1; }
"$agx" decode "$trace" --submit $((n_text - 1)) | grep -q '^Submit ' || { echo "--submit failed"; exit 1; }
if "$agx" decode "$trace" --submit "$n_text" 2>/dev/null; then echo "--submit past the end accepted"; exit 1; fi
exit 0
