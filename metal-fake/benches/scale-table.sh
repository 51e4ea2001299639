#!/bin/sh
# Reads the output of `cargo bench -p metal-fake --bench scale` (a file, or
# standard input) and prints each write's instructions at 100 and at
# 99,000 records and their ratio: part n of each run is the nth write of
# scale.rs's WRITES, in this order.
names="get device_create device_update device_delete project_create project_update project_delete ssh_key_create ssh_key_update ssh_key_delete vlan_create vlan_update vlan_delete ip_create ip_update ip_delete ip_assign ip_unassign"
awk -v names="$names" '
/^scale::scale::at_100 / {w = 1}
/^scale::scale::at_99000 / {w = 2}
/## pid:/ {part = $7}
/^  Instructions:/ && part != "" {split($2, v, "|"); n[w, part] = v[1]; part = ""}
END {
  k = split(names, nm, " ")
  printf "%-16s %12s %12s %7s\n", "write", "at 100", "at 99,000", "ratio"
  for (i = 1; i <= k; i++)
    printf "%-16s %12d %12d %7.2f\n", nm[i], n[1, i], n[2, i], (n[1, i] ? n[2, i] / n[1, i] : 0)
}' "${1:--}"
