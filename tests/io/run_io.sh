#!/bin/sh
# Runs the producers of one HDF5 output test case, then the checks, in order (one meson test per
# case, so parallel `meson test` cannot run a checker before its producer).
#
#   run_io.sh CASE TEST_OUTPUT MPIEXEC PYTHON SRCDIR PLOT WORKDIR
#
# CASE: chain | kepler | grid | crash | tools | cloth | lattice | paraview | solid | stress | plot_cells. Exits 77 (skip)
# only for paraview without ParaView's pvpython.
set -u
case_=$1 exe=$2 mpiexec=$3 python=$4 srcdir=$5 plot=$6 work=$7
check="$python $srcdir/check_output.py"
# A direct solve and tight Newton tolerances make runs on different rank counts agree to
# round-off, so their files can be compared to 1e-12.
solve="-ksp_type preonly -pc_type redundant -snes_rtol 1e-14 -snes_atol 1e-12 -snes_stol 0"

fail() {
  echo "FAILED: $*" >&2
  exit 1
}
run() {
  echo "+ $*"
  "$@" || fail "$*"
}

# meson gives the executable relative to the build directory, the current one here
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot use $work"

case $case_ in
chain)
  run "$mpiexec" -n 1 "$exe" -o chain1.h5 -chain_n 20 -steps 30 -every 7 $solve
  run "$mpiexec" -n 3 "$exe" -o chain3.h5 -chain_n 20 -steps 30 -every 7 $solve
  run $check layout chain1.h5 --steps 30 --every 7 --model chain --ts-type theta2 --nranks 1 --shape 20 3
  run $check layout chain3.h5 --steps 30 --every 7 --model chain --ts-type theta2 --nranks 3 --shape 20 3
  run $check compare chain1.h5 chain3.h5 --tol 1e-12
  # a PETSc first-order type: the state comes out of X = [q; v]
  run "$mpiexec" -n 2 "$exe" -o beuler2ranks.h5 -chain_n 20 -steps 30 -every 7 -ts_type beuler
  run $check layout beuler2ranks.h5 --steps 30 --every 7 --model chain --ts-type beuler --nranks 2 --shape 20 3
  test ! -e chain1.xmf || fail "an XDMF file was written for the 1-D chain"
  # no monitor: the initial state recorded by hand, the final one by MechOutputClose()
  run "$mpiexec" -n 2 "$exe" -o byhand.h5 -chain_n 20 -steps 30 -every 7 -no_monitor
  run "$python" -c "
import h5py, numpy as np
f = h5py.File('byhand.h5', 'r')
assert list(f['monitor/step'][:]) == [0, 30], f['monitor/step'][:]
assert list(f['fields/step'][:]) == [0, 30], f['fields/step'][:]
assert f['fields/q'].shape == (2, 20, 3)
assert np.isclose(f['monitor/dt'][1], 0.3) and f['monitor/snes_its'][1] >= 30
print('byhand.h5: OK')"
  ;;
kepler)
  # a plain (non-DMDA) Vec held on rank 0, and an invariant
  run "$mpiexec" -n 1 "$exe" -o kepler1.h5 -model kepler -steps 20 -every 5 -dt 0.05 $solve
  run "$mpiexec" -n 2 "$exe" -o kepler2.h5 -model kepler -steps 20 -every 5 -dt 0.05 $solve
  run $check layout kepler1.h5 --steps 20 --every 5 --model kepler --invariant angular_momentum --shape 2
  run $check layout kepler2.h5 --steps 20 --every 5 --model kepler --invariant angular_momentum --shape 2
  run $check compare kepler1.h5 kepler2.h5 --tol 1e-12
  ;;
solid)
  # the solid on a mesh: /fields and /mesh in the beam's vertex order, the same on 1 and 3 ranks
  beam="-model solid -solid_beam_cells 4,1,1 -dt 1e-4"
  run "$mpiexec" -n 1 "$exe" -o solid1.h5 $beam -steps 12 -every 5 $solve
  run "$mpiexec" -n 3 "$exe" -o solid3.h5 $beam -steps 12 -every 5 $solve
  cf="--cell-fields stress:6 von_mises:1 J:1 --text material=neohookean"
  run $check layout solid1.h5 --steps 12 --every 5 --model solid --nranks 1 --shape 20 3 --mesh $cf
  run $check layout solid3.h5 --steps 12 --every 5 --model solid --nranks 3 --shape 20 3 --mesh $cf
  run $check compare solid1.h5 solid3.h5 --tol 1e-12
  run $check xdmf solid3.xmf
  # the stresses of every snapshot, cell by cell, against the closed form at F of the positions
  run $check stress solid3.h5
  grep -q 'TopologyType="Tetrahedron"' solid3.xmf || fail "solid3.xmf: no Tetrahedron topology"
  sed 's|/mesh/tetrahedra|/mesh/vertices|' solid3.xmf >badtopo.xmf
  if $check xdmf badtopo.xmf >/dev/null 2>&1; then fail "xdmf accepted a topology that is not /mesh/tetrahedra"; fi
  # negative controls: a copy without /mesh/tetrahedra, and a copy whose vertices are renumbered
  run "$python" -c "
import h5py, numpy as np, shutil
shutil.copy('solid3.h5', 'nomesh.h5')
with h5py.File('nomesh.h5', 'r+') as f:
    del f['mesh/tetrahedra']
shutil.copy('solid3.h5', 'renumbered.h5')
with h5py.File('renumbered.h5', 'r+') as f:
    p = np.roll(np.arange(20), 1)
    for k in ('fields/q', 'fields/v'):
        f[k][...] = f[k][:][:, p]
    f['mesh/vertices'][...] = f['mesh/vertices'][:][p]"
  if $check layout nomesh.h5 --steps 12 --every 5 --mesh >/dev/null 2>&1; then fail "layout --mesh accepted a file without /mesh/tetrahedra"; fi
  if $check compare solid1.h5 renumbered.h5 --tol 1e-12 >/dev/null 2>&1; then fail "compare accepted a renumbered mesh"; fi
  # a mesh file (renumbered inside for the partitioner): /mesh in the file's order, its nodes
  # and tetrahedra (Gmsh 2.2 ASCII), on 1 and 3 ranks
  msh=$srcdir/../../examples/meshes/beam.msh
  run "$mpiexec" -n 1 "$exe" -o msh1.h5 -model solid -solid_mesh "$msh" -steps 4 -every 2 -dt 1e-4 $solve
  run "$mpiexec" -n 3 "$exe" -o msh3.h5 -model solid -solid_mesh "$msh" -steps 4 -every 2 -dt 1e-4 $solve
  run $check compare msh1.h5 msh3.h5 --tol 1e-12
  run "$python" -c "
import h5py, numpy as np
txt = open('$msh').read()
nodes = [l.split() for l in txt.split('\$Nodes')[1].split('\$EndNodes')[0].strip().splitlines()[1:]]
P = np.array([[float(x) for x in l[1:4]] for l in nodes])
els = [l.split() for l in txt.split('\$Elements')[1].split('\$EndElements')[0].strip().splitlines()[1:]]
T = np.array([[int(x) - 1 for x in l[-4:]] for l in els if l[1] == '4'])
f = h5py.File('msh3.h5', 'r')
assert np.array_equal(f['mesh/vertices'][()], P), 'the vertices are not in the file order'
assert np.array_equal(np.sort(f['mesh/tetrahedra'][()], axis=1), np.sort(T, axis=1)), 'the tetrahedra are not the file order'
print('msh3.h5: /mesh is beam.msh in its order,', len(P), 'nodes,', len(T), 'tetrahedra')"
  # the picture: the deformed surface, the boundary triangles of the tetrahedra (a 4 x 1 x 1 box:
  # 18 squares, 36 triangles, a closed surface oriented outwards)
  run "$python" "$plot" snapshot solid3.h5 --color speed -o solid.png
  run "$python" "$plot" snapshot solid3.h5 --index 1 -o solid_u.png
  run "$python" -c "
import sys, h5py, numpy as np
sys.path.insert(0, '$(dirname "$plot")')
from tsmech_plot import surface_triangles
for png in ('solid.png', 'solid_u.png'):
    with open(png, 'rb') as g:
        assert g.read(8) == b'\x89PNG\r\n\x1a\n', png + ' is not a PNG'
f = h5py.File('solid3.h5', 'r')
X, T = f['mesh/vertices'][()], f['mesh/tetrahedra'][()]
tri = surface_triangles(T, X)
assert len(tri) == 36, len(tri)
edges = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
assert np.all(np.unique(edges, axis=0, return_counts=True)[1] == 2), 'the surface is not closed'
n = np.cross(X[tri[:, 1]] - X[tri[:, 0]], X[tri[:, 2]] - X[tri[:, 0]])
out = X[tri].mean(axis=1) - X.mean(axis=0)
assert np.all(np.einsum('ij,ij->i', n, out) > 0), 'a triangle points inwards'
# negative control: the faces of all tetrahedra are not a surface
assert len(surface_triangles(np.concatenate([T, T]), X)) == 0
print('solid.png: the surface of 36 triangles, closed and outward')"
  ;;
stress)
  # the per-cell stresses of the solid (MechSystemSetCellFields()): a uniform deformation gradient
  # (the patch test: every cell has F, sigma the closed form), the same files on 1 and 3 ranks
  F="1.02,0.03,-0.01,0.01,0.97,0.02,-0.02,0.015,1.05"
  patch="-model solid -solid_beam_cells 3,2,2 -solid_fix none -steps 0 -every 1"
  run "$mpiexec" -n 1 "$exe" -o patch1.h5 $patch -deform $F
  run "$mpiexec" -n 3 "$exe" -o patch3.h5 $patch -deform $F
  run $check layout patch3.h5 --steps 0 --every 1 --model solid --nranks 3 --cell-fields stress:6 von_mises:1 J:1 --text material=neohookean
  run $check stress patch1.h5 --F $F
  run $check stress patch3.h5 --F $F
  run $check compare patch1.h5 patch3.h5 --tol 0 --only fields/stress fields/von_mises fields/J fields/q mesh/vertices mesh/tetrahedra
  # every material's closed form (on 2 ranks)
  for m in linear svk neohookean_split mooney_rivlin; do
    run "$mpiexec" -n 2 "$exe" -o patch_$m.h5 $patch -deform $F -solid_material $m
    run $check stress patch_$m.h5 --F $F
  done
  # a uniaxially stretched bar of the linear material: sigma_xx = E eps, the rest 0
  run "$mpiexec" -n 3 "$exe" -o bar.h5 $patch -solid_material linear -solid_E 2e9 -solid_nu 0.25 -deform 1.001,0,0,0,0.99975,0,0,0,0.99975
  run $check stress bar.h5 --uniaxial 1e-3 --F 1.001,0,0,0,0.99975,0,0,0,0.99975
  # a moving, non-uniform state (the beam under gravity): every snapshot cell by cell, 1 and 3
  # ranks, and negative controls: the cells renumbered, a stress component changed
  beam="-model solid -solid_beam_cells 4,1,1 -dt 1e-4"
  run "$mpiexec" -n 1 "$exe" -o dyn1.h5 $beam -steps 12 -every 4 $solve
  run "$mpiexec" -n 3 "$exe" -o dyn3.h5 $beam -steps 12 -every 4 $solve
  run $check stress dyn1.h5
  run $check stress dyn3.h5
  run $check compare dyn1.h5 dyn3.h5 --tol 1e-12
  run "$python" -c "
import h5py, numpy as np, shutil
for name, edit in (('renumbered', lambda d: d[:, ::-1]), ('perturbed', lambda d: d * (1 + 1e-6))):
    shutil.copy('dyn3.h5', name + '.h5')
    with h5py.File(name + '.h5', 'r+') as f:
        f['fields/stress'][...] = edit(f['fields/stress'][:])"
  for x in renumbered perturbed; do
    if $check stress $x.h5 >/dev/null 2>&1; then fail "check_output.py stress accepted $x.h5"; fi
  done
  # XDMF: the cell attributes (stress_xx ... stress_xy, von_mises, J) select each snapshot's rows
  run $check xdmf dyn3.xmf
  grep -q 'Attribute Name="von_mises" AttributeType="Scalar" Center="Cell"' dyn3.xmf || fail "dyn3.xmf: no von_mises cell attribute"
  sed 's|0 0 3 1 1 1 1 [0-9]* 1|0 0 4 1 1 1 1 24 1|' dyn3.xmf >badcomp.xmf
  if cmp -s badcomp.xmf dyn3.xmf; then fail "badcomp.xmf: nothing changed"; fi
  if $check xdmf badcomp.xmf >/dev/null 2>&1; then fail "xdmf accepted stress_yz selecting another component"; fi
  # the picture coloured by the von Mises stress: each boundary triangle its tetrahedron's value
  run "$python" "$plot" snapshot dyn3.h5 --color von_mises -o von_mises.png
  run "$python" -c "
import sys, h5py, numpy as np
sys.path.insert(0, '$(dirname "$plot")')
import tsmech_plot as tp
with open('von_mises.png', 'rb') as g:
    assert g.read(8) == b'\x89PNG\r\n\x1a\n', 'von_mises.png is not a PNG'
run = tp.Run('dyn3.h5')
run.colour = 'von_mises'
tri, value = tp.face_colour(run, run.nsnap - 1)
f = h5py.File('dyn3.h5', 'r')
T, vm = f['mesh/tetrahedra'][()], f['fields/von_mises'][-1]
for t, c in zip(tri, value):
    owners = [i for i, tet in enumerate(T) if set(t) <= set(tet)]
    assert len(owners) == 1 and vm[owners[0]] == c, (t, owners, c)
print('von_mises.png: the', len(tri), 'boundary triangles coloured by their tetrahedra', value.min(), '..', value.max())"
  # a file without the field: one clear line, no picture
  echo "+ $plot snapshot nostress.h5 --color von_mises (must fail)"
  "$python" -c "
import shutil, h5py
shutil.copy('dyn3.h5', 'nostress.h5')
with h5py.File('nostress.h5', 'r+') as f:
    del f['fields/von_mises']"
  if "$python" "$plot" snapshot nostress.h5 --color von_mises -o x.png 2>err.txt; then fail "plotted a von Mises stress the file does not hold"; fi
  grep -q "tsmech_plot.py: error:.*no /fields/von_mises" err.txt || fail "no clear message: $(cat err.txt)"
  test ! -e x.png || fail "a refused plot left x.png"
  ;;
plot_cells)
  # tsmech_plot.py snapshot on the cells of /mesh/cells: quadratic tetrahedra (Tetrahedron_10) and
  # quadratic hexahedra (Hexahedron_27) of the 3 x 2 x 2 beam, deformed (-deform_quadratic), on 2
  # ranks: a PNG for each colour; the surface drawn is that of the corners: 64 triangles (32 faces of
  # the box, split in two), closed (every edge in two triangles), outward, each within the corners of
  # exactly one cell, coloured by that cell's von Mises stress or J
  for kind in tet hex; do
    run "$mpiexec" -n 2 "$exe" -o p2_$kind.h5 -model solid -solid_beam_cells 3,2,2 -solid_cell $kind -solid_order 2 -solid_fix none -steps 0 -every 1 -deform_quadratic 0.05
    for c in displacement von_mises J; do
      run "$python" "$plot" snapshot p2_$kind.h5 --color $c -o p2_${kind}_$c.png
    done
    run "$python" -c "
import sys, h5py, numpy as np
sys.path.insert(0, '$(dirname "$plot")')
import tsmech_plot as tp
for c in ('displacement', 'von_mises', 'J'):
    with open('p2_${kind}_' + c + '.png', 'rb') as g:
        assert g.read(8) == b'\x89PNG\r\n\x1a\n', c + ': not a PNG'
f = h5py.File('p2_${kind}.h5', 'r')
C, X, q = f['mesh/cells'][()], f['mesh/vertices'][()], f['fields/q'][0]
topo = f['mesh/cells'].attrs['topology']
topo = topo.decode() if isinstance(topo, bytes) else str(topo)
assert topo == ('Tetrahedron_10' if '$kind' == 'tet' else 'Hexahedron_27'), topo
nk = 4 if '$kind' == 'tet' else 8
run = tp.Run('p2_${kind}.h5')
assert run.tets is not None and run.tets.shape == (C.shape[0], nk), 'the corner cells were not read'
run.colour = 'von_mises'
tri, value = tp.face_colour(run, 0)
assert tri.shape == (64, 3), tri.shape
edges = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
assert np.all(np.unique(edges, axis=0, return_counts=True)[1] == 2), 'the surface is not closed'
n = np.cross(X[tri[:, 1]] - X[tri[:, 0]], X[tri[:, 2]] - X[tri[:, 0]])
assert np.all(np.einsum('ij,ij->i', n, X[tri].mean(axis=1) - X.mean(axis=0)) > 0), 'a triangle points inwards'
for name in ('von_mises', 'J'):
    run.colour = name
    tri, value = tp.face_colour(run, 0)
    cf = f['fields/' + name][0]
    for t, c in zip(tri, value):
        owners = [i for i in range(C.shape[0]) if set(t) <= set(C[i, :nk])]
        assert len(owners) == 1 and cf[owners[0]] == c, (name, t, owners, c)
    assert np.ptp(value) > 0, name + ' is uniform: the state is not deformed'
print('p2_${kind}: $kind /mesh/cells ' + topo + ', the surface of', len(tri), 'triangles of the corners, closed and outward, coloured by the cells')"
  done
  ;;
grid)
  run "$mpiexec" -n 1 "$exe" -o sheet1.h5 -model grid2d -grid_n 7 -steps 12 -every 5 $solve
  run "$mpiexec" -n 3 "$exe" -o sheet3.h5 -model grid2d -grid_n 7 -steps 12 -every 5 $solve
  run "$mpiexec" -n 1 "$exe" -o block1.h5 -model grid3d -grid_n 5 -steps 12 -every 5 $solve
  run "$mpiexec" -n 4 "$exe" -o block4.h5 -model grid3d -grid_n 5 -steps 12 -every 5 $solve
  run $check layout sheet3.h5 --steps 12 --every 5 --model grid2d --shape 7 7 3
  run $check layout block4.h5 --steps 12 --every 5 --model grid3d --shape 5 5 5 3
  run $check compare sheet1.h5 sheet3.h5 --tol 1e-12
  run $check compare block1.h5 block4.h5 --tol 1e-12
  for x in sheet1 sheet3 block1 block4; do run $check xdmf $x.xmf; done
  ;;
crash)
  # killed after step 16: the snapshots 0, 7, 14 and /monitor up to step 14 must be readable
  echo "+ $mpiexec -n 3 $exe -o killed.h5 -chain_n 20 -steps 30 -every 7 -abort_after_step 16 (must fail)"
  if "$mpiexec" -n 3 "$exe" -o killed.h5 -chain_n 20 -steps 30 -every 7 -abort_after_step 16; then
    fail "the aborted run exited with status 0"
  fi
  run $check crash killed.h5 --every 7 --last 14
  ;;
tools)
  run "$mpiexec" -n 1 "$exe" -o chain.h5 -chain_n 20 -steps 30 -every 7
  run "$mpiexec" -n 1 "$exe" -o chain_cn2.h5 -chain_n 20 -steps 30 -every 7 -ts_type cn2
  run "$mpiexec" -n 1 "$exe" -o kepler.h5 -model kepler -steps 20 -every 5 -dt 0.05
  run "$mpiexec" -n 2 "$exe" -o sheet.h5 -model grid2d -steps 12 -every 5
  run "$mpiexec" -n 2 "$exe" -o block.h5 -model grid3d -grid_n 4 -steps 12 -every 5
  run "$python" "$plot" energy chain.h5 chain_cn2.h5 kepler.h5 -o energy.png
  run "$python" "$plot" snapshot chain.h5 -o chain.png
  run "$python" "$plot" snapshot kepler.h5 --index 2 -o kepler.png
  run "$python" "$plot" snapshot sheet.h5 --index -1 -o sheet.png
  run "$python" "$plot" snapshot block.h5 --index 0 -o block.png
  for png in energy chain kepler sheet block; do
    test -s $png.png || fail "$png.png is missing or empty"
    head -c 8 $png.png | od -An -c | grep -q 'P   N   G' || fail "$png.png is not a PNG"
  done
  # errors: a missing file, a file without the datasets, a snapshot out of range
  "$python" -c "import h5py; h5py.File('empty.h5', 'w').close()" || fail "cannot write empty.h5"
  for args in "energy missing.h5 -o x.png" "energy empty.h5 -o x.png" "snapshot empty.h5 -o x.png" "snapshot chain.h5 --index 99 -o x.png"; do
    echo "+ $plot $args (must fail)"
    if "$python" "$plot" $args 2>err.txt; then fail "tsmech_plot.py $args succeeded"; fi
    grep -q "tsmech_plot.py: error:" err.txt || fail "tsmech_plot.py $args gave no clear message: $(cat err.txt)"
    cat err.txt
  done
  test ! -e x.png || fail "a failed plot left x.png"
  # the energy scale: max(K + |V|) over the run, not |E0| (which a cloth starting flat has as 0)
  run "$python" -c "
import sys, h5py, numpy as np
sys.path.insert(0, '$(dirname "$plot")')
import tsmech_plot as tp
f = h5py.File('chain.h5', 'r')
s, how = tp.energy_scale(f, f['monitor/energy'][()])
want = np.max(np.abs(f['monitor/kinetic'][()]) + np.abs(f['monitor/potential'][()]))
assert how == 'max(K + |V|)' and s == want and s > 0, (s, how, want)
print(f'energy scale of chain.h5: S = {s:.6g} = {how}')"
  # obstacles from the attributes: a cloth with its sphere, drawn in a snapshot and an animation
  run "$mpiexec" -n 2 "$exe" -model cloth -cloth_n 8 -cloth_sphere -o sphere.h5 -steps 12 -every 4 -dt 0.01
  run "$python" -c "
import sys, h5py, numpy as np
sys.path.insert(0, '$(dirname "$plot")')
import tsmech_plot as tp
f = h5py.File('sphere.h5', 'r')
obst = tp.obstacles(f)
a = f.attrs
assert len(obst) == 1 and np.allclose(obst[0][0], [a['sphere_x'], a['sphere_y'], a['sphere_z']]) and obst[0][1] == a['sphere_radius'], obst
assert tp.obstacles(h5py.File('sheet.h5', 'r')) == [], 'an obstacle in a run without one'
print('obstacles of sphere.h5:', obst)"
  run "$python" "$plot" snapshot sphere.h5 -o sphere.png
  run "$python" "$plot" animate sphere.h5 -o sphere.gif --fps 5
  run "$python" "$plot" animate sheet.h5 -o sheet.gif
  run "$python" "$plot" animate kepler.h5 -o kepler.gif
  run "$python" -c "
import h5py
from PIL import Image
for run in ('sphere', 'sheet', 'kepler'):
    n = h5py.File(run + '.h5', 'r')['fields/q'].shape[0]
    im = Image.open(run + '.gif')
    assert im.format == 'GIF' and im.n_frames == n, (run, im.format, im.n_frames, n)
    print(f'{run}.gif: {im.n_frames} frames = the {n} snapshots, {im.size[0]} x {im.size[1]}')"
  echo "+ $plot animate sheet.h5 -o x.png (must fail)"
  if "$python" "$plot" animate sheet.h5 -o x.png 2>err.txt; then fail "animate wrote a non-GIF name"; fi
  grep -q "tsmech_plot.py: error:.*GIF" err.txt || fail "animate -o x.png gave no clear message: $(cat err.txt)"
  test ! -e x.png || fail "a refused animation left x.png"
  ;;
cloth | lattice)
  if [ $case_ = cloth ]; then opts="-cloth_n 8" shape="8 8 3"; else opts="-lattice_n 6" shape="6 6 6 3"; fi
  run "$mpiexec" -n 1 "$exe" -model $case_ -o ${case_}1.h5 -steps 12 -every 5 -dt 0.005 $opts $solve
  run "$mpiexec" -n 2 "$exe" -model $case_ -o ${case_}2.h5 -steps 12 -every 5 -dt 0.005 $opts $solve
  run "$mpiexec" -n 3 "$exe" -model $case_ -o ${case_}3.h5 -steps 12 -every 5 -dt 0.005 $opts $solve
  run $check layout ${case_}1.h5 --steps 12 --every 5 --model $case_ --shape $shape
  run $check layout ${case_}3.h5 --steps 12 --every 5 --model $case_ --shape $shape --nranks 3
  run $check compare ${case_}1.h5 ${case_}2.h5 --tol 1e-12
  run $check compare ${case_}1.h5 ${case_}3.h5 --tol 1e-12
  run $check xdmf ${case_}1.xmf
  run $check xdmf ${case_}3.xmf
  run "$python" "$plot" snapshot ${case_}3.h5 -o $case_.png
  test -s $case_.png || fail "$case_.png is missing or empty"
  ;;
paraview)
  # ParaView's own XDMF reader (pvpython, from Debian's paraview package, when installed): the
  # surface, the volume and the solid's tetrahedra, with their velocity and displacement
  pvpython=$(command -v pvpython) || exit 77
  run "$mpiexec" -n 2 "$exe" -model cloth -cloth_n 8 -o cloth.h5 -steps 12 -every 4 -dt 0.005
  run "$mpiexec" -n 2 "$exe" -model lattice -lattice_n 5 -o lattice.h5 -steps 12 -every 4 -dt 0.005
  # the solid: an unstructured grid of tetrahedra (/mesh/tetrahedra), moving (an initial velocity)
  run "$mpiexec" -n 3 "$exe" -model solid -solid_beam_cells 4,1,1 -solid_v0 0,0,1 -o solid.h5 -steps 12 -every 4 -dt 1e-3
  for x in cloth lattice solid; do run "$pvpython" "$srcdir/paraview_check.py" $x.xmf $x.h5; done
  ;;
*)
  fail "unknown case $case_"
  ;;
esac
echo "io $case_: OK"
