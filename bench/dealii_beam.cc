/*
  The deal.II peer of tsmech's linear Q2 beam (bench/dealii_beam.py builds and runs it; it is no
  part of tsmech's build or tests): the built-in beam [0, 1] x [0, 0.1] x [0, 0.1] of 10 x 1 x 1
  hexahedra refined r times, Q2 elements, the small-strain linear material (E 1e7, nu 0.3),
  clamped at x = 0, under gravity (density 1000, g = (0, 0, -9.81)), the static solve

      K u = f

  by matrix-free CG with geometric multigrid: the operator by deal.II's sum factorization
  (FEEvaluation, 3 Gauss points per direction as tsmech's rule), Chebyshev smoothing of degree 5
  on the inverse diagonal (deal.II's MatrixFreeTools::compute_diagonal()), single-precision levels,
  the coarsest mesh (10 x 1 x 1) solved by CG to 1e-6 of its residual (its float precision),
  the outer CG to a relative residual of 1e-8 in double precision. Written for this benchmark after
  deal.II's tutorial step-37 (the Laplacian's matrix-free multigrid) and its elasticity tutorials;
  the same structure, elasticity in place of the Laplacian.

    dealii_beam REFINEMENTS

  prints "dealii unknowns N cg_its K setup_cpu S solve_cpu S tip ux uy uz" (the displacement of
  the corner (1, 0.1, 0.1)) and the CPU time of each part (std::clock()).
*/
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/matrix_free/tools.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_tools.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/numerics/vector_tools.h>

#include <ctime>
#include <iostream>

using namespace dealii;

constexpr int    dim = 3, degree = 2, nq1 = degree + 1;
constexpr double E = 1e7, nu = 0.3, rho = 1000, gz = -9.81;
const double     mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));

static double Cpu()
{
  return (double)std::clock() / CLOCKS_PER_SEC;
}

/* The linear elasticity operator, matrix-free, in precision Number */
template <typename Number>
class ElasticityOperator : public MatrixFreeOperators::Base<dim, LinearAlgebra::distributed::Vector<Number>>
{
public:
  using VectorType = LinearAlgebra::distributed::Vector<Number>;
  using FEEval     = FEEvaluation<dim, degree, nq1, dim, Number>;

  void compute_diagonal() override
  {
    this->inverse_diagonal_entries.reset(new DiagonalMatrix<VectorType>());
    VectorType &d = this->inverse_diagonal_entries->get_vector();
    this->data->initialize_dof_vector(d);
    MatrixFreeTools::compute_diagonal(*this->data, d, &ElasticityOperator::local_cell, this);
    this->set_constrained_entries_to_one(d);
    for (auto &v : d) v = v != Number(0) ? Number(1) / v : Number(1);
  }

  void local_cell(FEEval &phi) const
  {
    phi.evaluate(EvaluationFlags::gradients);
    for (unsigned int q = 0; q < phi.n_q_points; ++q) {
      const auto eps = phi.get_symmetric_gradient(q);
      auto       sig = (2 * Number(mu)) * eps;
      const auto tr  = trace(eps) * Number(lambda);
      for (unsigned int d = 0; d < dim; ++d) sig[d][d] += tr;
      phi.submit_symmetric_gradient(sig, q);
    }
    phi.integrate(EvaluationFlags::gradients);
  }

private:
  void apply_add(VectorType &dst, const VectorType &src) const override
  {
    this->data->cell_loop(&ElasticityOperator::cell_range, this, dst, src);
  }

  void cell_range(const MatrixFree<dim, Number> &data, VectorType &dst, const VectorType &src, const std::pair<unsigned int, unsigned int> &range) const
  {
    FEEval phi(data);
    for (unsigned int cell = range.first; cell < range.second; ++cell) {
      phi.reinit(cell);
      phi.read_dof_values(src);
      local_cell(phi);
      phi.distribute_local_to_global(dst);
    }
  }
};

int main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const unsigned int               refinements = argc > 1 ? std::atoi(argv[1]) : 2;
  double                           t0          = Cpu();

  Triangulation<dim> tria(Triangulation<dim>::limit_level_difference_at_vertices);
  GridGenerator::subdivided_hyper_rectangle(tria, {10u, 1u, 1u}, Point<dim>(0, 0, 0), Point<dim>(1, 0.1, 0.1), true);
  tria.refine_global(refinements);

  FESystem<dim>   fe(FE_Q<dim>(degree), dim);
  DoFHandler<dim> dofh(tria);
  dofh.distribute_dofs(fe);
  dofh.distribute_mg_dofs();
  MappingQ1<dim> mapping;

  AffineConstraints<double> constraints;
  DoFTools::make_hanging_node_constraints(dofh, constraints);
  VectorTools::interpolate_boundary_values(mapping, dofh, 0, Functions::ZeroFunction<dim>(dim), constraints);
  constraints.close();

  using VectorD = LinearAlgebra::distributed::Vector<double>;
  using VectorF = LinearAlgebra::distributed::Vector<float>;
  ElasticityOperator<double> op;
  {
    typename MatrixFree<dim, double>::AdditionalData ad;
    ad.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    ad.mapping_update_flags  = update_gradients | update_JxW_values | update_values | update_quadrature_points;
    auto mf                  = std::make_shared<MatrixFree<dim, double>>();
    mf->reinit(mapping, dofh, constraints, QGauss<1>(nq1), ad);
    op.initialize(mf);
  }

  /* the levels */
  MGConstrainedDoFs mgc;
  mgc.initialize(dofh);
  mgc.make_zero_boundary_constraints(dofh, {0});
  const unsigned int                          nlev = tria.n_global_levels();
  MGLevelObject<ElasticityOperator<float>>    mgops(0, nlev - 1);
  for (unsigned int l = 0; l < nlev; ++l) {
    IndexSet relevant;
    DoFTools::extract_locally_relevant_level_dofs(dofh, l, relevant);
    AffineConstraints<double> lc;
    lc.reinit(relevant);
    lc.add_lines(mgc.get_boundary_indices(l));
    lc.close();
    typename MatrixFree<dim, float>::AdditionalData ad;
    ad.tasks_parallel_scheme = MatrixFree<dim, float>::AdditionalData::none;
    ad.mapping_update_flags  = update_gradients | update_JxW_values;
    ad.mg_level              = l;
    auto mf                  = std::make_shared<MatrixFree<dim, float>>();
    mf->reinit(mapping, dofh, lc, QGauss<1>(nq1), ad);
    mgops[l].initialize(mf, mgc, l);
    mgops[l].compute_diagonal();
  }
  MGTransferMatrixFree<dim, float> transfer(mgc);
  transfer.build(dofh);

  using Smoother = PreconditionChebyshev<ElasticityOperator<float>, VectorF>;
  mg::SmootherRelaxation<Smoother, VectorF>     smoother;
  MGLevelObject<typename Smoother::AdditionalData> sd(0, nlev - 1);
  for (unsigned int l = 1; l < nlev; ++l) {
    sd[l].smoothing_range     = 15.;
    sd[l].degree              = 5;
    sd[l].eig_cg_n_iterations = 10;
    sd[l].preconditioner      = mgops[l].get_matrix_diagonal_inverse();
  }
  smoother.initialize(mgops, sd);

  SolverControl                                 coarse_control(1000, 1e-6, false, false);
  ReductionControl                              coarse_red(1000, 1e-30, 1e-6);
  SolverCG<VectorF>                             coarse_cg(coarse_red);
  PreconditionIdentity                          id;
  MGCoarseGridIterativeSolver<VectorF, SolverCG<VectorF>, ElasticityOperator<float>, PreconditionIdentity> coarse(coarse_cg, mgops[0], id);

  mg::Matrix<VectorF>                                  mgmat(mgops);
  Multigrid<VectorF>                                   mg(mgmat, coarse, transfer, smoother, smoother);
  PreconditionMG<dim, VectorF, MGTransferMatrixFree<dim, float>> pmg(dofh, mg, transfer);

  /* the load: gravity */
  VectorD u, f;
  op.initialize_dof_vector(u);
  op.initialize_dof_vector(f);
  {
    FEEvaluation<dim, degree, nq1, dim, double> phi(*op.get_matrix_free());
    Tensor<1, dim, VectorizedArray<double>>     b;
    b[2] = rho * gz;
    for (unsigned int c = 0; c < op.get_matrix_free()->n_cell_batches(); ++c) {
      phi.reinit(c);
      for (unsigned int q = 0; q < phi.n_q_points; ++q) phi.submit_value(b, q);
      phi.integrate(EvaluationFlags::values);
      phi.distribute_local_to_global(f);
    }
    f.compress(VectorOperation::add);
  }
  const double tsetup = Cpu() - t0;

  t0 = Cpu();
  ReductionControl control(10000, 1e-300, 1e-8, false, false);
  SolverCG<VectorD> cg(control);
  constraints.set_zero(u);
  cg.solve(op, u, f, pmg);
  constraints.distribute(u);
  const double tsolve = Cpu() - t0;

  /* the corner (1, 0.1, 0.1) */
  Vector<double> tip(dim);
  u.update_ghost_values();
  VectorTools::point_value(mapping, dofh, u, Point<dim>(1, 0.1, 0.1), tip);
  /* one operator application, timed over 20 (ns per unknown) */
  VectorD y;
  op.initialize_dof_vector(y);
  t0 = Cpu();
  for (int r = 0; r < 20; ++r) op.vmult(y, u);
  const double tapply = (Cpu() - t0) / 20;
  std::printf("dealii unknowns %u cg_its %u setup_cpu %.3f solve_cpu %.3f apply_ns %.1f tip %.12e %.12e %.12e\n", dofh.n_dofs(), control.last_step(), tsetup, tsolve, 1e9 * tapply / dofh.n_dofs(), tip[0], tip[1], tip[2]);
  return 0;
}
