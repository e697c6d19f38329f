#!/bin/sh
# Runs one checkpoint/restart test case: tsmech runs that are interrupted (by -ts_max_steps, or
# by kill -9 or a signal delivered at a known step through the test hooks
# -checkpoint_test_pause_at_step and -checkpoint_test_pause_in_write), restarted, and checked
# with check_checkpoint.py against an uninterrupted run. One meson test per case.
#
#   run_checkpoint.sh CASE TSMECH MPIEXEC PYTHON SRCDIR WORKDIR
#
# CASE: exact | kill9 | kill9_write | signal | refuse | ranks
set -u
case_=$1 exe=$2 mpiexec=$3 python=$4 srcdir=$5 work=$6
check="$python $srcdir/check_checkpoint.py"
# A direct solve is deterministic, and with tight Newton tolerances runs on different rank
# counts agree to round-off.
solve="-ksp_type preonly -pc_type redundant -snes_rtol 1e-14 -snes_atol 1e-12 -snes_stol 0"
chain="-model chain -chain_n 12 $solve"

fail() {
  echo "FAILED: $*" >&2
  exit 1
}
run() {
  echo "+ $*"
  "$@" || fail "$*"
}
# tsmech NP OPTIONS... (stdin from /dev/null: mpiexec would read the loops' here-documents)
tsmech() {
  np=$1
  shift
  echo "+ $mpiexec -n $np $exe -quiet $*"
  "$mpiexec" -n "$np" "$exe" -quiet "$@" </dev/null || fail "tsmech $*"
}
# must_fail PATTERN NP OPTIONS...: tsmech fails and says PATTERN (an extended regular expression)
must_fail() {
  pat=$1 np=$2
  shift 2
  echo "+ $mpiexec -n $np $exe $* (must fail saying: $pat)"
  if "$mpiexec" -n "$np" "$exe" -quiet "$@" </dev/null >log.txt 2>&1; then
    cat log.txt
    fail "tsmech $* succeeded"
  fi
  grep -E "$pat" log.txt || {
    cat log.txt
    fail "tsmech $* did not say: $pat"
  }
}
# start_bg NP OPTIONS...: tsmech in the background (pid in bgpid, output in bg.txt)
start_bg() {
  np=$1
  shift
  echo "+ $mpiexec -n $np $exe $* &"
  "$mpiexec" -n "$np" "$exe" -quiet "$@" </dev/null >bg.txt 2>&1 &
  bgpid=$!
}
# interrupt SIGNAL MARKER: waits (at most a minute) for the test hook to write MARKER, the process
# ids of the ranks, sends them SIGNAL and waits for mpiexec; its exit status in bgstatus
interrupt() {
  i=0
  while [ ! -e "$2" ]; do
    if ! kill -0 $bgpid 2>/dev/null; then
      cat bg.txt
      fail "tsmech ended before writing $2"
    fi
    i=$((i + 1))
    if [ $i -gt 1200 ]; then
      kill -KILL $bgpid
      fail "no $2 after a minute"
    fi
    sleep 0.05
  done
  pids=$(cat "$2")
  echo "+ kill -$1" $pids
  kill -"$1" $pids || fail "kill -$1 $pids"
  wait $bgpid
  bgstatus=$?
  echo "  mpiexec exited with status $bgstatus"
  rm -f "$2"
}

# meson gives the executable relative to the build directory, the current one here
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot use $work"

# the run the interrupted ones must reproduce: the chain, adaptive steps, extrapolated guesses
adaptive="$chain -ts_adapt_type basic -ts_theta_initial_guess_extrapolate -ts_dt 1e-2 -ts_max_steps 60 -output_every 7"

case $case_ in
exact)
  # Stopped after step 23 (the final checkpoint), restarted to step 60: bit for bit the
  # uninterrupted run, state and output, for the integrators with history (adaptive error
  # estimate, extrapolated guesses), a grid model, a plain Vec, PETSc first-order types.
  while read -r name opts; do
    [ -n "$name" ] || continue
    echo "=== $name: $opts"
    tsmech 2 $opts -ts_max_steps 60 -checkpoint ref_$name.h5 -output refo_$name.h5 -output_every 7
    tsmech 2 $opts -ts_max_steps 23 -checkpoint ck_$name.h5 -output o_$name.h5 -output_every 7
    tsmech 2 $opts -ts_max_steps 60 -checkpoint ck_$name.h5 -output o_$name.h5 -output_every 7 -restart ck_$name.h5
    run $check same ref_$name.h5 ck_$name.h5
    run $check output refo_$name.h5 o_$name.h5
    if [ -e refo_$name.xmf ]; then run $check xmf refo_$name.xmf o_$name.xmf; fi
  done <<EOF
adaptive $chain -ts_adapt_type basic -ts_theta_initial_guess_extrapolate -ts_dt 1e-2
linearized $chain -ts_type beuler2 -ts_theta_linearized -ts_theta_linearized_guess extrapolate -ts_adapt_type basic
endpoint $chain -ts_type theta2 -ts_theta_theta 0.6 -ts_theta_endpoint -ts_theta_initial_guess_extrapolate
cloth -model cloth -cloth_n 6 $solve -ts_dt 5e-3
kepler -model kepler $solve -ts_dt 0.05 -ts_adapt_type basic
beuler $chain -ts_type beuler
symeuler2 -model chain -chain_n 12 -ts_type symeuler2 -ts_dt 1e-4
gauss2 -model chain -chain_n 12 -ts_type gauss2 -ts_gauss2_stages 3 -ts_dt 1e-3
discgrad2 $chain -ts_type discgrad2 -ts_dt 1e-3
solid -model solid -solid_beam_cells 4,1,1 $solve -ts_dt 1e-4
EOF
  echo "=== gauss2: the number of stages (3, not the default 2) comes from the checkpoint"
  tsmech 2 -model chain -chain_n 12 -ts_type gauss2 -ts_gauss2_stages 3 -ts_dt 1e-3 -ts_max_steps 23 -checkpoint ckg.h5
  tsmech 2 -model chain -chain_n 12 -ts_max_steps 60 -checkpoint ckg.h5 -restart ckg.h5
  run $check same ref_gauss2.h5 ckg.h5
  echo "=== the TS settings come from the checkpoint; every, keep, interval; two restarts"
  lin="-ts_type beuler2 -ts_theta_linearized -ts_theta_linearized_guess extrapolate -ts_adapt_type basic"
  tsmech 2 $chain $lin -ts_max_steps 23 -checkpoint ck.h5 -checkpoint_every 10 -checkpoint_keep 3 -output o.h5 -output_every 7
  run $check at ck.h5 --step 23
  run $check at ck.h5.1 --step 20
  run $check at ck.h5.2 --step 10
  # no -ts_ option: beuler2, its linearized guess and the basic adaptor are the checkpoint's
  tsmech 2 $chain -ts_max_steps 41 -checkpoint ck.h5 -checkpoint_interval 1e-9 -checkpoint_keep 3 -output o.h5 -output_every 7 -restart ck.h5
  run $check at ck.h5 --step 41
  run $check at ck.h5.1 --step 40
  run $check at ck.h5.2 --step 39
  tsmech 2 $chain -ts_max_steps 60 -checkpoint ck.h5 -checkpoint_every 10 -checkpoint_keep 3 -output o.h5 -output_every 7 -restart ck.h5
  run $check at ck.h5.1 --step 50
  run $check at ck.h5.2 --step 41
  test ! -e ck.h5.3 || fail "-checkpoint_keep 3 kept a fourth checkpoint"
  run $check same ref_linearized.h5 ck.h5
  run $check output refo_linearized.h5 o.h5
  ;;
kill9)
  # kill -9 after step 25 (the checkpoint is of step 20, the output reaches its snapshot 21)
  tsmech 2 $adaptive -checkpoint ref.h5 -output refo.h5
  start_bg 2 $adaptive -checkpoint ck.h5 -checkpoint_every 10 -output o.h5 -checkpoint_test_pause_at_step 25
  interrupt KILL ck.h5.pause
  [ $bgstatus -ne 0 ] || fail "mpiexec exited with 0 after kill -9"
  run $check at ck.h5 --step 20
  run $check monitor o.h5 --last 21 --snap 0 7 14 21
  tsmech 2 $adaptive -checkpoint ck.h5 -checkpoint_every 10 -output o.h5 -restart ck.h5
  run $check same ref.h5 ck.h5
  run $check output refo.h5 o.h5
  # the solid's per-cell fields (stress, von_mises, J) are cut back with q and v: a restart whose
  # first write (the output flushed for the checkpoint of step 24) removes the last snapshot of the
  # interrupted run (step 23), killed before its own next snapshot, leaves every /fields dataset
  # at the snapshots before the restart
  solid="-model solid -solid_beam_cells 4,1,1 $solve -ts_dt 1e-4 -output_every 7"
  tsmech 2 $solid -ts_max_steps 23 -checkpoint cks.h5 -output os.h5
  run $check monitor os.h5 --last 23 --snap 0 7 14 21 23
  start_bg 2 $solid -ts_max_steps 60 -checkpoint cks.h5 -checkpoint_every 2 -output os.h5 -restart cks.h5 -checkpoint_test_pause_at_step 25
  interrupt KILL cks.h5.pause
  [ $bgstatus -ne 0 ] || fail "mpiexec exited with 0 after kill -9"
  run $check monitor os.h5 --last 24 --snap 0 7 14 21
  ;;
kill9_write)
  # kill -9 in the middle of the write of the checkpoint of step 30: the one of step 20 (and,
  # kept, of step 10) intact, the partial file refused
  tsmech 2 $adaptive -checkpoint ref.h5 -output refo.h5
  start_bg 2 $adaptive -checkpoint ck.h5 -checkpoint_every 10 -checkpoint_keep 2 -output o.h5 -checkpoint_test_pause_in_write 30
  interrupt KILL ck.h5.pause
  [ $bgstatus -ne 0 ] || fail "mpiexec exited with 0 after kill -9"
  run $check at ck.h5 --step 20
  run $check at ck.h5.1 --step 10
  tmp=$(ls ck.h5.tmp-*) || fail "no partial checkpoint ck.h5.tmp-* left by the killed write"
  must_fail "Cannot restart from $tmp: it is incomplete \(its write was interrupted\)" 2 $adaptive -checkpoint ck.h5 -output o.h5 -restart "$tmp"
  run $check at ck.h5 --step 20
  tsmech 2 $adaptive -checkpoint ck.h5 -checkpoint_every 10 -checkpoint_keep 2 -output o.h5 -restart ck.h5
  run $check same ref.h5 ck.h5
  run $check at ck.h5.1 --step 50
  run $check output refo.h5 o.h5
  ;;
signal)
  # SIGTERM after step 25: the step finished, checkpoint and output written, exit non-zero
  # with the restart command, and the restart reproduces the uninterrupted run
  tsmech 2 $adaptive -checkpoint ref.h5 -output refo.h5
  start_bg 2 $adaptive -checkpoint ck.h5 -checkpoint_every 10 -output o.h5 -checkpoint_test_pause_at_step 25
  interrupt TERM ck.h5.pause
  cat bg.txt
  [ $bgstatus -ne 0 ] || fail "mpiexec exited with 0 after SIGTERM"
  grep -q "interrupted by SIGTERM at step 25, t = [0-9.e-]*; continue with: tsmech <same options> -restart ck.h5" bg.txt || fail "no restart message"
  run $check at ck.h5 --step 25
  run $check monitor o.h5 --last 25 --snap 0 7 14 21 25
  tsmech 2 $adaptive -checkpoint ck.h5 -checkpoint_every 10 -output o.h5 -restart ck.h5
  run $check same ref.h5 ck.h5
  run $check output refo.h5 o.h5
  # SIGINT, one rank, no -checkpoint: the output closed at the step, a message, non-zero status
  start_bg 1 $chain -ts_max_steps 60 -output int.h5 -checkpoint_test_pause_at_step 12
  interrupt INT tsmech.pause
  cat bg.txt
  [ $bgstatus -ne 0 ] || fail "mpiexec exited with 0 after SIGINT"
  grep -q "interrupted by SIGINT at step 12, .*no -checkpoint was given" bg.txt || fail "no message"
  run $check monitor int.h5 --last 12 --snap 0 10 12
  ;;
refuse)
  # each refusal names the file and the difference, and changes no file
  tsmech 2 $chain -ts_max_steps 30 -checkpoint ck.h5 -output o.h5
  tsmech 1 -model kepler -ts_max_steps 10 -output kepler.h5
  tsmech 2 $chain -ts_max_steps 10 -output short.h5
  run $check mutate ck.h5 version4.h5 setattr format_version 4
  run $check mutate ck.h5 version1.h5 setattr format_version 1
  run $check mutate ck.h5 partial.h5 delattr complete
  run $check mutate ck.h5 size.h5 resum global_size 37
  run $check mutate ck.h5 edited.h5 setattr dt 0.5
  run $check mutate ck.h5 truncated.h5 truncate
  run $check mutate ck.h5 corrupted.h5 corrupt
  solid="-model solid -solid_beam_cells 2,1,1 $solve -ts_dt 1e-4"
  tsmech 2 $solid -ts_max_steps 3 -checkpoint cks.h5 -output os.h5
  # the material is a text parameter (format version 3): its value changed without the checksum,
  # in another datatype, with a recomputed checksum (another material), and a checkpoint of
  # format version 2, which recorded the material as a number; a chain checkpoint of version 2
  # (no text parameters) is read (below, after the refusals)
  run $check mutate cks.h5 cks_text.h5 settext material svk
  run $check mutate cks.h5 cks_nullpad.h5 nullpadtext material
  run $check mutate cks.h5 cks_forged.h5 forgetext material svk
  run $check mutate cks.h5 cks_v2.h5 v2 material 2
  run $check mutate ck.h5 ck_v2.h5 v2
  # an svk run whose checkpoint would continue the neohookean output os.h5, and that output as an
  # older tsmech wrote it (the material a number)
  tsmech 2 $solid -solid_material svk -ts_max_steps 3 -checkpoint cks_svk.h5
  run "$python" -c "
import shutil, h5py, numpy as np
shutil.copy('os.h5', 'os_v2.h5')
with h5py.File('os_v2.h5', 'r+') as f:
    del f.attrs['material']
    f.attrs['material'] = np.float64(2)
    f.attrs['model_parameters'] = np.bytes_(f.attrs['model_parameters'].decode() + ',material')
    f.attrs['model_text_parameters'] = np.bytes_(' ')
# the stresses of the output damaged: missing, and of the wrong shape
for name, edit in (('os_nostress.h5', None), ('os_badstress.h5', lambda d: d[:, :, :5])):
    shutil.copy('os.h5', name)
    with h5py.File(name, 'r+') as f:
        d = f['fields/stress'][()]
        del f['fields/stress']
        if edit:
            f.create_dataset('fields/stress', data=edit(d), maxshape=(None,) + d.shape[1:-1] + (5,), chunks=True)"
  # the shipped beam mesh, and a copy with one vertex moved by 1e-7: the same vertex and cell counts
  msh="-model solid -solid_fix_value 1 $solve -ts_dt 1e-4"
  tsmech 2 $msh -solid_fix_label "Face Sets" -solid_mesh "$srcdir/../../examples/meshes/beam.msh" -ts_max_steps 3 -checkpoint ckm.h5
  sed 's/^20 0.2 0 0$/20 0.2000001 0 0/' "$srcdir/../../examples/meshes/beam.msh" >moved.msh
  if cmp -s moved.msh "$srcdir/../../examples/meshes/beam.msh"; then fail "moved.msh: no vertex was moved"; fi
  md5sum ./* >before.md5
  files=$(ls)
  more="-ts_max_steps 60 -checkpoint ck.h5 -output o.h5"
  must_fail "Cannot restart from ck.h5: it was written for model chain, this run is model kepler" 2 -model kepler $more -restart ck.h5
  must_fail "Cannot restart from ck.h5: it was written with the model parameter n = 12, this run has n = 13" 2 $chain -chain_n 13 $more -restart ck.h5
  must_fail "Cannot restart from ck.h5: it was written with the model parameter k = 1000, this run has k = 2000" 2 $chain -chain_k 2000 $more -restart ck.h5
  must_fail "Cannot restart from size.h5: its state has 37 values, this run's 36" 2 $chain $more -restart size.h5
  must_fail "Cannot restart from version4.h5: its format version is 4, this tsmech \(.*\) reads versions 2 to 3" 2 $chain $more -restart version4.h5
  must_fail "Cannot restart from version1.h5: its format version is 1, this tsmech \(.*\) reads versions 2 to 3: version 1 has no checksum of its header" 2 $chain $more -restart version1.h5
  must_fail "Cannot restart from edited.h5: its header does not match its checksum /checkpoint/checksum_header \(the file is corrupted\)" 2 $chain $more -restart edited.h5
  must_fail "Cannot restart from partial.h5: it is incomplete" 2 $chain $more -restart partial.h5
  must_fail "Cannot restart from truncated.h5: it cannot be opened as an HDF5 file \(truncated, damaged or not HDF5\)" 2 $chain $more -restart truncated.h5
  must_fail "Cannot restart from corrupted.h5: the data of /checkpoint/q do not match their checksum \(the file is corrupted\)" 2 $chain $more -restart corrupted.h5
  must_fail "Cannot restart from o.h5: it is not a tsmech checkpoint" 2 $chain -ts_max_steps 60 -checkpoint ck.h5 -output other.h5 -restart o.h5
  must_fail "Cannot restart from missing.h5: the file does not exist" 2 $chain $more -restart missing.h5
  # the solid's checkpoint holds its mesh's identity: another vertex count or other
  # coordinates are refused
  must_fail "Cannot restart from cks.h5: it was written with the model parameter vertices = 12, this run has vertices = 16" 2 $solid -solid_beam_cells 3,1,1 -ts_max_steps 6 -checkpoint cks.h5 -restart cks.h5
  must_fail "Cannot restart from cks.h5: it was written with the model parameter beam_lx = 1, this run has beam_lx = 1.5" 2 $solid -solid_beam_size 1.5,0.1,0.1 -ts_max_steps 6 -checkpoint cks.h5 -restart cks.h5
  must_fail "Cannot restart from ckm.h5: it was written with the model parameter mesh_checksum = [0-9]+, this run has mesh_checksum = [0-9]+" 2 $msh -solid_fix_label "Face Sets" -solid_mesh moved.msh -ts_max_steps 6 -checkpoint ckm.h5 -restart ckm.h5
  # the material, by name: another one, a damaged value, a forged one, the older numeric format
  one="^tsmech: error: -restart"
  must_fail "$one cks.h5: Cannot restart from cks.h5: it was written with the model parameter material = neohookean, this run has material = svk\$" 2 $solid -solid_material svk -ts_max_steps 6 -checkpoint cks.h5 -restart cks.h5
  must_fail "$one cks_text.h5: Cannot restart from cks_text.h5: its header does not match its checksum /checkpoint/checksum_header \(the file is corrupted\)\$" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -restart cks_text.h5
  must_fail "$one cks_nullpad.h5: Cannot restart from cks_nullpad.h5: its attribute /checkpoint/model_text_parameters/material has the datatype .*, not a fixed-length NUL-terminated ASCII string \(the file is damaged\)\$" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -restart cks_nullpad.h5
  must_fail "$one cks_forged.h5: Cannot restart from cks_forged.h5: it was written with the model parameter material = svk, this run has material = neohookean\$" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -restart cks_forged.h5
  must_fail "$one cks_v2.h5: Cannot restart from cks_v2.h5: it records the model parameter material as the number 2 \(an older format\), this run records it by name, material = neohookean; finish that run with the tsmech that wrote it, or start it anew\$" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -restart cks_v2.h5
  must_fail "Cannot continue the output file os.h5 from step 3: it holds a run with material = neohookean, this run has material = svk" 2 $solid -solid_material svk -ts_max_steps 6 -checkpoint cks_svk.h5 -output os.h5 -restart cks_svk.h5
  must_fail "Cannot continue the output file os_v2.h5 from step 3: it records the model parameter material as the number 2 \(an older format\), this run records it by name, material = neohookean" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -output os_v2.h5 -restart cks.h5
  must_fail "Cannot continue the output file os_nostress.h5 from step 3: it has no dataset /fields/stress" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -output os_nostress.h5 -restart cks.h5
  must_fail "Cannot continue the output file os_badstress.h5 from step 3: .*/fields/stress.*\(2, 12, 5\)" 2 $solid -ts_max_steps 6 -checkpoint cks.h5 -output os_badstress.h5 -restart cks.h5
  # a valid checkpoint, but an output file that cannot be continued from its step
  must_fail "Cannot continue the output file kepler.h5 from step 30: it holds a run of model kepler, this run is model chain" 2 $chain -ts_max_steps 60 -checkpoint ck.h5 -output kepler.h5 -restart ck.h5
  must_fail "Cannot continue the output file short.h5 from step 30: its /monitor covers steps 0 to 10 .* the steps in between would be missing" 2 $chain -ts_max_steps 60 -checkpoint ck.h5 -output short.h5 -restart ck.h5
  rm -f log.txt
  md5sum -c --quiet before.md5 || fail "a refused restart changed a file"
  [ "$(ls)" = "$files" ] || fail "a refused restart left a file: $(ls)"
  echo "no file changed"
  # format version 2 is still read: the chain's checkpoint as version 2 wrote it (no text
  # parameters) continues bit for bit as the version 3 one does
  tsmech 2 $chain -ts_max_steps 40 -checkpoint from3.h5 -restart ck.h5
  tsmech 2 $chain -ts_max_steps 40 -checkpoint from2.h5 -restart ck_v2.h5
  run $check same from3.h5 from2.h5
  ;;
ranks)
  # written on 3 ranks, continued on 2 and on 1: the uninterrupted 3-rank run to 1e-10
  while read -r name opts; do
    [ -n "$name" ] || continue
    echo "=== $name: $opts"
    tsmech 3 $opts -ts_max_steps 60 -checkpoint ref_$name.h5 -output refo_$name.h5
    tsmech 3 $opts -ts_max_steps 23 -checkpoint ck_$name.h5 -output o_$name.h5
    cp ck_$name.h5 ck1_$name.h5 && cp o_$name.h5 o1_$name.h5 || fail "cp"
    tsmech 2 $opts -ts_max_steps 60 -checkpoint ck_$name.h5 -output o_$name.h5 -restart ck_$name.h5
    run $check same ref_$name.h5 ck_$name.h5 --rtol 1e-10
    run $check output refo_$name.h5 o_$name.h5 --rtol 1e-10
    tsmech 1 $opts -ts_max_steps 60 -checkpoint ck1_$name.h5 -output o1_$name.h5 -restart ck1_$name.h5
    run $check same ref_$name.h5 ck1_$name.h5 --rtol 1e-10
    run $check output refo_$name.h5 o1_$name.h5 --rtol 1e-10
  done <<EOF
adaptive $chain -ts_adapt_type basic -ts_theta_initial_guess_extrapolate -ts_dt 1e-2 -output_every 7
cloth -model cloth -cloth_n 6 $solve -ts_dt 5e-3 -output_every 7
solid -model solid -solid_beam_cells 4,1,1 $solve -ts_dt 1e-4 -output_every 7
EOF
  ;;
*)
  fail "unknown case $case_"
  ;;
esac
echo "checkpoint $case_: OK"
