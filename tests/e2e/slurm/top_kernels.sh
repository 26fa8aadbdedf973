#!/bin/sh
# Made by `pipeline slurm` (tracepipe 0.1.0): a Slurm job array, one shard of the
# traces per task (--shard auto), then a merge job after every task has ended
# (afterany): it merges from the shards' manifests and fails naming a missing
# shard; re-run that task (sbatch --array=I) and the merge job. Run it with sh.
set -e
cd '@CWD@'
job_id() { sed -n 's/^Submitted batch job \([0-9][0-9]*\).*/\1/p'; }
array=$(sbatch --job-name=tracepipe --array=0-3 '--partition=gpu' '--comment=a b;`x`' <<'TRACEPIPE_ARRAY_JOB' | job_id
#!/bin/sh
# task I is shard I of 4: sbatch --array=I of this script re-runs it alone
export TRACEPIPE_SHARD="$SLURM_ARRAY_TASK_ID/4"
exec '@PIPELINE@' run 'top_kernels' --input 'runs/job 42/' --shard auto/4 --no-progress --set 'out=out dir/it'\''s $HOME' --set 'top=7'
TRACEPIPE_ARRAY_JOB
)
[ -n "$array" ] || { echo 'pipeline slurm: sbatch gave no job id for the array' >&2; exit 1; }
merge=$(sbatch --job-name=tracepipe-merge --dependency=afterany:"$array" '--partition=gpu' '--comment=a b;`x`' <<'TRACEPIPE_MERGE_JOB' | job_id
#!/bin/sh
exec '@PIPELINE@' merge 'out dir/it'\''s $HOME'
TRACEPIPE_MERGE_JOB
)
[ -n "$merge" ] || { echo 'pipeline slurm: sbatch gave no job id for the merge' >&2; exit 1; }
echo "pipeline slurm: array job $array (4 tasks), merge job $merge (after it)"
