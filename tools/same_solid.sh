#!/bin/bash
# The solid's runs for tools/same_results.sh: P1, P2, Q1 and Q2 elements, each material, mesh
# files, constraints and every load kind, the stresses written or not, static and dynamic, a
# restart. Requires bitwise the same /fields and /monitor of two builds.
#
#   tools/same_solid.sh OLD_BUILD_DIR NEW_BUILD_DIR [WORKDIR]
export SAME_RUNS='p1_neo|2|-model solid -solid_beam_cells 8,2,2 -ts_type midpoint2 -ts_max_steps 8|-ts_max_steps 12
p1_linear|1|-model solid -solid_material linear -solid_beam_cells 8,2,2 -ts_type cn2 -ts_max_steps 8
p2_svk|2|-model solid -solid_order 2 -solid_material svk -solid_beam_cells 6,2,2 -ts_type midpoint2 -ts_max_steps 6
p2_pmg|2|-options_file CONFIG/solid_quadratic.opts -solid_beam_cells 6,2,2 -ts_max_steps 5
q1_mooney|2|-model solid -solid_cell hex -solid_material mooney_rivlin -solid_c1 1.5e6 -solid_c2 3e5 -solid_kappa 2e7 -solid_beam_cells 8,2,2 -ts_type midpoint2 -ts_max_steps 8
q2_split|2|-model solid -solid_cell hex -solid_order 2 -solid_material neohookean_split -solid_mu 3e6 -solid_kappa 1e7 -solid_beam_cells 4,2,2 -ts_type cn2 -ts_max_steps 6
q1_mf|1|-options_file CONFIG/solid.opts -solid_cell hex -solid_beam_cells 8,2,2 -solid_mass lumped -solid_rayleigh 0.5,1e-4 -solid_output_stress 0 -ts_max_steps 6
p1_loads|2|-model solid -solid_beam_cells 8,2,2 -solid_g 0,0,0 -solid_bc clamp,drive -solid_bc_clamp_where x=0 -solid_bc_drive_where x=1 -solid_bc_drive_u 0,0.001,0 -solid_bc_drive_components y -solid_bc_drive_time sin:40 -solid_load p,side,end -solid_load_p_where x=1 -solid_load_p_pressure 2e4 -solid_load_p_time ramp:0.01 -solid_load_side_where z=0 -solid_load_side_traction 0,0,1e3 -solid_load_end_where x=1 -solid_load_end_force 0,10,0 -ts_type midpoint2 -ts_max_steps 8|-ts_max_steps 10
q2_loads|2|-model solid -solid_cell hex -solid_order 2 -solid_beam_cells 4,2,2 -solid_g 0,0,0 -solid_bc clamp -solid_bc_clamp_where x=0 -solid_load p,side -solid_load_p_where x=1 -solid_load_p_pressure 2e4 -solid_load_side_where y=0 -solid_load_side_traction 0,1e3,0 -ts_type cn2 -ts_max_steps 5
p2_static|1|-model solid -solid_order 2 -solid_beam_cells 6,2,2 -solid_g_time ramp:1 -solid_load end -solid_load_end_where x=1 -solid_load_end_force 0,0,-50 -ts_type static2 -ts_max_time 1 -ts_dt 0.5 -pc_type lu
spin_svk|2|-model solid -solid_material svk -solid_beam_cells 8,2,2 -solid_fix none -solid_g 0,0,0 -solid_v0 1,0,0 -solid_spin 0,0,2 -ts_type midpoint2 -ts_max_steps 8
hexmesh|1|-model solid -solid_mesh TESTS/solid/hexahedra.msh -solid_fix none -solid_material neohookean -ts_type midpoint2 -ts_max_steps 5
tetmesh_p2|1|-model solid -solid_mesh TESTS/solid/tet_ok.msh -solid_order 2 -solid_fix none -ts_type midpoint2 -ts_max_steps 5'
exec "$(dirname "$0")/same_results.sh" "$@"
