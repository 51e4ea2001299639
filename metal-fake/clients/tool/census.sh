#!/bin/sh
# Rebuild the client census (metal-fake/clients/*.tsv, and the body and reply
# fields in metal-fake/clients/fields/*.tsv) from bare git mirrors.
# Usage: census.sh MIRRORS_DIR OUT_DIR SPEC_JSON
#   MIRRORS_DIR holds owner+name/repo bare mirrors of packethost/packngo,
#   equinix/equinix-sdk-go, equinix/metal-cli, equinix/terraform-provider-metal,
#   equinix/terraform-provider-equinix, equinix-labs/ansible-collection-equinix,
#   equinix/equinix-sdk-python, packethost/packet-python, monogon-dev/monogon,
#   monogon-dev/packngo.
set -eu
M=$1; OUT=$2; SPEC=$3
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
(cd "$HERE" && go build -o "$W/census" .)
C=$W/census
ex() { # ex MIRROR REV DEST [PATHS...]: extract a revision's files
  m=$1; rev=$2; d=$3; shift 3
  mkdir -p "$d"; git --git-dir="$M/$m/repo" archive "$rev" "$@" | tar -x -C "$d"
}
short() { git --git-dir="$M/$1/repo" rev-parse --short=12 "$2^{commit}"; }

# revisions
PK_MAIN=$(short packethost+packngo HEAD)
CLI=$(short equinix+metal-cli HEAD)
ANS=$(short equinix-labs+ansible-collection-equinix HEAD)
TPM=v3.3.0      # terraform-provider-metal: last release (pins packngo v0.25.0)
TPE=v4.16.1     # terraform-provider-equinix (pins packngo v0.31.0 = packngo's last commit, sdk-go v0.64.2)
CLI_SDK=$(git --git-dir="$M/equinix+metal-cli/repo" show HEAD:go.mod | awk '$1=="github.com/equinix/equinix-sdk-go"{print $2}')
TPE_SDK=$(git --git-dir="$M/equinix+terraform-provider-equinix/repo" show $TPE:go.mod | awk '$1=="github.com/equinix/equinix-sdk-go"{print $2}')
TPE_PK=$(git --git-dir="$M/equinix+terraform-provider-equinix/repo" show $TPE:go.mod | awk '$1=="github.com/packethost/packngo"{print $2}')
PP=$(short packethost+packet-python HEAD)
MONO=$(short monogon-dev+monogon d0d5d9dd0457)  # the last commit with cloud/equinix/wrapngo (b21bdf9e deleted it)
# wrapngo's packngo: its go.mod replaces packethost/packngo with the monogon-dev/packngo fork, pseudo-version -<commit>
MONO_PK=$(git --git-dir="$M/monogon-dev+monogon/repo" show $MONO:go.mod | awk '$1=="replace" && $2=="github.com/packethost/packngo"{print $5}' | sed 's/.*-//')
ANS_PY=v$(git --git-dir="$M/equinix-labs+ansible-collection-equinix/repo" show HEAD:requirements.txt | sed -n 's/^equinix==//p')

ex packethost+packngo HEAD "$W/pk-main"
ex packethost+packngo v0.25.0 "$W/pk-25"
ex packethost+packngo "$TPE_PK" "$W/pk-tpe"
ex equinix+equinix-sdk-go "$CLI_SDK" "$W/sdk-cli" services/metalv1
ex equinix+equinix-sdk-go "$TPE_SDK" "$W/sdk-tpe" services/metalv1
ex equinix+equinix-sdk-python "$ANS_PY" "$W/pysdk" equinix/services/metalv1/api
ex equinix+metal-cli HEAD "$W/cli"
ex equinix+terraform-provider-metal $TPM "$W/tpm"
ex equinix+terraform-provider-equinix $TPE "$W/tpe"
ex equinix-labs+ansible-collection-equinix HEAD "$W/ans" plugins
ex packethost+packet-python HEAD "$W/pp" packet
ex monogon-dev+monogon $MONO "$W/mono" cloud/equinix/wrapngo
ex monogon-dev+packngo "$MONO_PK" "$W/pk-mono"

# packngo: every request of every exported service method
"$C" packngo "$W/pk-main" | awk -F'\t' -v OFS='\t' '{print $1,$2,$3,$4,$5}' > "$W/pk-main.raw"
"$C" packngo "$W/pk-25" > "$W/pk-25.raw"
# packngo indexes: service method -> requests (itself and the service methods it calls)
"$C" packngo-index "$W/pk-25" > "$W/pk-25.idx" 2>/dev/null
"$C" packngo-index "$W/pk-tpe" > "$W/pk-tpe.idx" 2>/dev/null
"$C" packngo-index "$W/pk-mono" > "$W/pk-mono.idx" 2>/dev/null

(cd "$W/cli" && find . -name '*.go' ! -name '*_test.go' ! -path './test/*' | sed 's|^\./||' | sort) > "$W/cli.list"
(cd "$W/tpm" && find . -name '*.go' ! -name '*_test.go' | sed 's|^\./||' | sort) > "$W/tpm.list"
(cd "$W/mono" && find cloud/equinix/wrapngo -name '*.go' ! -name '*_test.go' | sort) > "$W/mono.list"
(cd "$W/tpe" && { find internal/resources/metal -name '*.go' ! -name '*_test.go'; find equinix -name '*metal*.go' ! -name '*_test.go'; } | sort) > "$W/tpe.list"

"$C" consumer "$W/cli" "equinix/metal-cli@$CLI:" "$W/cli.list" - "$W/sdk-cli/services/metalv1" > "$W/cli.raw"
"$C" consumer "$W/tpm" "equinix/terraform-provider-metal@$TPM:" "$W/tpm.list" "$W/pk-25.idx" - > "$W/tpm.raw"
"$C" consumer "$W/tpe" "equinix/terraform-provider-equinix@$TPE:" "$W/tpe.list" "$W/pk-tpe.idx" "$W/sdk-tpe/services/metalv1" > "$W/tpe.raw"
"$C" consumer "$W/mono" "monogon-dev/monogon@$MONO:" "$W/mono.list" "$W/pk-mono.idx" - > "$W/mono.raw"
python3 "$HERE/py/packet_python_routes.py" "$W/pp" "packethost/packet-python@$PP" > "$W/pp.raw"
python3 "$HERE/py/ansible_routes.py" "$W/ans" "$W/pysdk" "equinix-labs/ansible-collection-equinix@$ANS" > "$W/ans.raw"

mkdir -p "$OUT"
A="python3 $HERE/py/assemble.py $SPEC"
$A "$W/pk-main.raw" "$OUT/packngo-main.tsv" "packethost/packngo@$PK_MAIN:"
$A "$W/pk-25.raw" "$OUT/packngo-v0.25.0.tsv" "packethost/packngo@v0.25.0:"
$A "$W/cli.raw" "$OUT/metal-cli.tsv"
$A "$W/tpm.raw" "$OUT/terraform-provider-metal.tsv"
$A "$W/tpe.raw" "$OUT/terraform-provider-equinix.tsv"
$A "$W/ans.raw" "$OUT/ansible-equinix.tsv"
$A "$W/pp.raw" "$OUT/packet-python.tsv"
$A "$W/mono.raw" "$OUT/wrapngo.tsv"

# body fields sent and reply fields read: packngo's request and reply structs;
# its users' are packngo's rows of the routes they send
"$C" packngo-fields "$W/pk-main" > "$W/pkf-main.raw" 2>/dev/null
"$C" packngo-fields "$W/pk-25" > "$W/pkf-25.raw" 2>/dev/null
"$C" packngo-fields "$W/pk-tpe" > "$W/pkf-tpe.raw" 2>/dev/null
"$C" packngo-fields "$W/pk-mono" > "$W/pkf-mono.raw" 2>/dev/null
mkdir -p "$OUT/fields"
F="python3 $HERE/py/assemble_fields.py $SPEC"
$F "$W/pkf-main.raw" "$OUT/fields/packngo-main.tsv" "packethost/packngo@$PK_MAIN:"
$F "$W/pkf-25.raw" "$OUT/fields/packngo-v0.25.0.tsv" "packethost/packngo@v0.25.0:"
$F "$W/pkf-25.raw" "$OUT/fields/terraform-provider-metal.tsv" "packethost/packngo@v0.25.0:" "$OUT/terraform-provider-metal.tsv"
python3 "$HERE/py/packet_python_fields.py" "$W/pp" "$SPEC" > "$W/ppf.raw" 2>/dev/null
$F "$W/ppf.raw" "$OUT/fields/packet-python.tsv" "packethost/packet-python@$PP:"
$F "$W/pkf-mono.raw" "$OUT/fields/wrapngo.tsv" "monogon-dev/packngo@$(short monogon-dev+packngo "$MONO_PK"):" "$OUT/wrapngo.tsv"
# metalv1 users: the body fields of the request models their files fill
pre() { awk -F'\t' -v OFS='\t' -v P="$1" '{$7=P $7; print}'; }
"$C" sdk-fields "$W/cli" "$W/cli.list" "$W/sdk-cli/services/metalv1" "$OUT/metal-cli.tsv" | pre "equinix/metal-cli@$CLI:" > "$W/clif.raw"
$F "$W/clif.raw" "$OUT/fields/metal-cli.tsv" ""
{ pre "packethost/packngo@$TPE_PK:" < "$W/pkf-tpe.raw"
  "$C" sdk-fields "$W/tpe" "$W/tpe.list" "$W/sdk-tpe/services/metalv1" "$OUT/terraform-provider-equinix.tsv" | pre "equinix/terraform-provider-equinix@$TPE:"
} > "$W/tpef.raw"
$F "$W/tpef.raw" "$OUT/fields/terraform-provider-equinix.tsv" "" "$OUT/terraform-provider-equinix.tsv"
