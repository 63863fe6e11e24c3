# demo: the Asahi UAPI device: a submission's firmware queue view, and its speed
set -euo pipefail
plan=$(mktemp)
trace=$(mktemp --suffix=.json)
trap 'rm -f "$plan" "$trace"' EXIT
cat >"$plan" <<'PLAN'
# The worked example of the Asahi driver notes: renders (R) and computes (C)
# with per-command barriers [render boundary, compute boundary].
#0 R1 barrier=[__, C0]
#1 C1 barrier=[__, __]
#2 C2 barrier=[__, __]
#3 R2 barrier=[R1, C2]
#4 R3 barrier=[__, __] # [R1, C2] implied
#5 R4 barrier=[R3, __] # [R3, C2] implied
PLAN
echo "\$ agx submit-plan plan.txt"
"$AGX" submit-plan "$plan"
echo
echo "\$ agx submit-plan --json --trace timeline.json plan.txt"
"$AGX" submit-plan --json --trace "$trace" "$plan"
echo "(timeline.json: $(grep -c '"ph": "X"' "$trace") commands on a Perfetto/Chrome trace timeline)"
echo
echo "\$ agx bench kmd"
"$AGX" bench kmd
