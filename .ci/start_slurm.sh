#!/usr/bin/env bash
# Start a single-node SLURM cluster (munge + slurmctld + slurmd) on this machine for tests.
#
# Uses the distribution's packages (Debian: `apt-get install -y slurm-wlm munge`); needs root.
# No cgroups (containers rarely allow them), no slurmdbd: job states are read with `squeue`,
# and MinJobAge keeps finished jobs visible long enough for Snakemake's status checks.
# Idempotent: if `sinfo` already answers, nothing is started.
#   .ci/start_slurm.sh [--install]   # --install: apt-get the packages first
#   .ci/start_slurm.sh --stop        # stop the daemons this script started
# Exit code 0 = the node is idle and accepts jobs; anything else = SLURM is not usable here.
set -euo pipefail

STATE=${SLURM_TEST_STATE:-/var/tmp/boexplore-slurm}
CONF_DIR=/etc/slurm
PARTITION=${SLURM_TEST_PARTITION:-debug}

if [[ "${1:-}" == "--stop" ]]; then
    for pidfile in "$STATE/slurmd.pid" "$STATE/slurmctld.pid" "$STATE/munged.pid"; do
        if [[ -s "$pidfile" ]]; then
            kill "$(cat "$pidfile")" 2>/dev/null || true
            rm -f "$pidfile"
        fi
    done
    exit 0
fi

if [[ "${1:-}" == "--install" ]] && ! command -v slurmctld >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq slurm-wlm munge >/dev/null
fi

for exe in munged slurmctld slurmd sinfo sbatch; do
    command -v "$exe" >/dev/null || { echo "start_slurm: $exe not found (apt-get install -y slurm-wlm munge)" >&2; exit 3; }
done
if [[ $(id -u) -ne 0 ]]; then
    echo "start_slurm: must run as root to start munged/slurmd" >&2
    exit 4
fi

node_ready() { timeout 5 sinfo -h -o "%T" 2>/dev/null | grep -qE "idle|mix|alloc"; }
if node_ready; then
    echo "start_slurm: a cluster already answers:"
    sinfo
    exit 0
fi
# A half-started cluster from an earlier attempt: stop what this script started.
"$0" --stop

mkdir -p "$STATE"/{spool,ctld} /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chown -R slurm:slurm "$STATE"
chmod 755 "$STATE"
if [[ ! -s /etc/munge/munge.key ]]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key

NODE=$(hostname -s)
CPUS=$(nproc)
# Leave 2 GB for the OS; slurmd refuses to start if RealMemory exceeds the real memory.
MEM_MB=$(($(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) - 2048))

mkdir -p "$CONF_DIR"
cat >"$CONF_DIR/slurm.conf" <<EOF
# Written by boexplore .ci/start_slurm.sh: single-node test cluster.
ClusterName=boexplore-ci
SlurmctldHost=$NODE
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
MpiDefault=none
NodeName=$NODE CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
# Slurm 22.05 cannot disable its cgroup plugin; autodetect (v1/v2) only reads the hierarchy here.
rm -f "$CONF_DIR/cgroup.conf"

su -s /bin/sh munge -c "munged --force --pid-file=/run/munge/munged.pid" || munged --force
cp /run/munge/munged.pid "$STATE/munged.pid" 2>/dev/null || true
slurmctld -i
slurmd

# Wait until the node is idle (slurmd registered).
for _ in $(seq 1 30); do
    if node_ready; then
        sinfo
        exit 0
    fi
    sleep 1
done
echo "start_slurm: the node did not become idle; see $STATE/slurmctld.log and $STATE/slurmd.log" >&2
sinfo >&2 || true
exit 5
