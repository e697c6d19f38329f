/*
  Materials per region of the solid: a cell group of the mesh with its own material, moduli,
  density and Rayleigh coefficients.

    -solid_region steel,rubber                           the regions' names
    -solid_region_steel_group steel                      its cells (select.c: _label/_value, _group,
    -solid_region_rubber_where x>0.5                     or _where inequalities on the centroids)
    -solid_region_steel_material linear                  and its material: _material, _E, _nu, _mu,
    -solid_region_steel_E 2e11 -solid_region_steel_nu 0  _lambda, _kappa, _c1, _c2, _density,
    -solid_region_steel_density 7800                     _rayleigh alpha,beta
    -solid_region_steel_rayleigh 0,1e-5

  Region 0 holds the cells in no named region, with the global options (-solid_material, -solid_E,
  ...). A region takes what it does not give from the global options: the material, the density,
  the Rayleigh coefficients each; the moduli all when it gives none, the other of E and nu (the
  global material's) when it gives one of them, none when it gives another modulus (mu, lambda,
  kappa, c1, c2: the others at their defaults, E 1e7 and nu 0.3). Every cell has one region: overlapping regions, and a region that selects no cell, are
  refused naming them. The kernels take each cell's material (SolidCellRegion(), elements.c): the
  forces, tangents, energies, stresses, the mass (each cell's density) and the damping
  D = sum over the regions of alpha_r M_r + beta_r K0_r. Every region is recorded in the system's
  parameters (its cell count and a checksum of everything above), so a checkpoint holds them and a
  restart with other regions is refused naming the parameter.
*/
#include "solidimpl.h"
#include <ctype.h>

/*MC
  SolidRegions - materials per region of the solid (src/models/solid/regions.c)

  Options Database Keys:
+ -solid_region <names>                - the regions, comma-separated (letters, digits and _); a region's cells are
                                         given by its selection -solid_region_<name>_label, _value, _group or _where
                                         (`SolidSelection`: a label or Gmsh physical volume, or inequalities on the
                                         cells' centroids, x<0.5)
. -solid_region_<name>_material <name> - its material (default: -solid_material)
. -solid_region_<name>_E, -solid_region_<name>_nu, -solid_region_<name>_mu, -solid_region_<name>_lambda, -solid_region_<name>_kappa, -solid_region_<name>_c1, -solid_region_<name>_c2 - its moduli, as -solid_E ... -solid_c2
                                         (none given: the global ones; E or nu alone: the other the global one)
. -solid_region_<name>_density <rho>   - its density (default: -solid_density)
- -solid_region_<name>_rayleigh <a,b>  - its Rayleigh coefficients (default: -solid_rayleigh)

  Level: intermediate

  Notes:
  Cells in no region take the global options. Overlapping regions and a region without cells are
  refused. The stresses and energies follow each cell's material.

.seealso: `MechCreateSolid()`, `SolidSelection`
M*/

/*
  The region of the material options in (prefix names the options in messages: -solid or
  -solid_region_NAME): the material by name, the moduli (SolidModuliFromOptions()), the density
  and Rayleigh coefficients, each checked
*/
PetscErrorCode SolidRegionFromInput(MPI_Comm comm, const char o[], const SolidMaterialInput *in, SolidRegion *r)
{
  char names[256], which[160];

  PetscFunctionBegin;
  PetscCheck(in->ray[0] >= 0 && in->ray[1] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_rayleigh %g,%g: both must be non-negative", o, (double)in->ray[0], (double)in->ray[1]);
  PetscCheck(in->rho > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_density %g must be positive", o, (double)in->rho);
  SolidMaterialNames(names, sizeof(names));
  r->mat = SolidMaterialFind(in->material);
  PetscCheck(r->mat, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s_material %s: unknown material; allowed: %s", o, in->material, names);
  PetscCall(SolidModuliFromOptions(comm, o, r->mat, in->setE, in->E, in->setnu, in->nu, in->setmu, in->mu, in->setlambda, in->lambda, in->setkappa, in->kappa, in->setc1, in->c1, in->setc2, in->c2, &r->mod, &r->E, &r->nu));
  /* the stress and the tangent add and multiply the moduli: a P-wave modulus lambda + 2 mu beyond
     1e200 leaves no room below the largest double (1.8e308) */
  if (in->setmu || in->setlambda) PetscCall(PetscSNPrintf(which, sizeof(which), "%s_mu, %s_lambda", o, o));
  else PetscCall(PetscSNPrintf(which, sizeof(which), "%s_E, %s_nu", o, o));
  PetscCheck(PetscIsNormalReal(r->E) && PetscIsNormalReal(r->mod.mu) && PetscIsNormalReal(r->mod.lambda + 2 * r->mod.mu) && r->mod.lambda + 2 * r->mod.mu <= 1e200, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the moduli mu = %g, lambda = %g are too large for floating point (lambda + 2 mu must be at most 1e200)", which, (double)r->mod.mu, (double)r->mod.lambda);
  r->rho   = in->rho;
  r->alpha = in->ray[0];
  r->beta  = in->ray[1];
  PetscFunctionReturn(0);
}

/*
  A region's material options (-solid_region_NAME_*), taking from the global ones (glob, their
  moduli reg0) what it does not give: the material, density and Rayleigh coefficients each; the
  moduli all if it gives none, the other of E and nu (reg0's, whatever the global options gave) if it
  gives one of them, none if it gives another modulus (mu, lambda, kappa, c1, c2)
*/
static PetscErrorCode RegionInput(MPI_Comm comm, const char o[], const SolidMaterialInput *glob, const SolidRegion *reg0, SolidMaterialInput *in)
{
  char      opt[10][160], names[256], title[256];
  PetscBool set[7];
  PetscReal val[7] = {1e7, 0.3, 0, 0, 0, 0, 0};
  PetscBool any    = PETSC_FALSE;

  PetscFunctionBegin;
  *in = *glob;
  {
    const char *suffix[10] = {"E", "nu", "mu", "lambda", "kappa", "c1", "c2", "material", "density", "rayleigh"};

    for (PetscInt k = 0; k < 10; k++) PetscCall(PetscSNPrintf(opt[k], sizeof(opt[k]), "%s_%s", o, suffix[k]));
  }
  SolidMaterialNames(names, sizeof(names));
  PetscCall(PetscSNPrintf(title, sizeof(title), "The material region %s_* (SolidRegions)", o));
  PetscOptionsBegin(comm, NULL, title, "MechCreateSolid");
  PetscCall(MechOptionsString(opt[7], names, "SolidRegions", in->material, in->material, sizeof(in->material), NULL));
  PetscCall(MechOptionsReal(opt[0], "Young's modulus of the region", "SolidRegions", val[0], &val[0], &set[0]));
  PetscCall(MechOptionsReal(opt[1], "Poisson's ratio of the region", "SolidRegions", val[1], &val[1], &set[1]));
  PetscCall(MechOptionsReal(opt[2], "Lame's shear modulus of the region", "SolidRegions", val[2], &val[2], &set[2]));
  PetscCall(MechOptionsReal(opt[3], "Lame's first parameter of the region", "SolidRegions", val[3], &val[3], &set[3]));
  PetscCall(MechOptionsReal(opt[4], "Bulk modulus of the region (neohookean_split, mooney_rivlin)", "SolidRegions", val[4], &val[4], &set[4]));
  PetscCall(MechOptionsReal(opt[5], "Mooney-Rivlin c1 of the region", "SolidRegions", val[5], &val[5], &set[5]));
  PetscCall(MechOptionsReal(opt[6], "Mooney-Rivlin c2 of the region", "SolidRegions", val[6], &val[6], &set[6]));
  PetscCall(MechOptionsReal(opt[8], "Density of the region", "SolidRegions", in->rho, &in->rho, NULL));
  PetscCall(MechOptionsRealList(opt[9], "Rayleigh damping alpha,beta of the region", "SolidRegions", in->ray, 2, NULL));
  PetscOptionsEnd();
  for (PetscInt k = 2; k < 7; k++) any = any || set[k] ? PETSC_TRUE : PETSC_FALSE;
  if (!any && (set[0] || set[1])) {
    /* E or nu: the other the global material's */
    if (!set[0]) val[0] = reg0->E;
    if (!set[1]) val[1] = reg0->nu;
    set[0] = set[1] = PETSC_TRUE;
    any             = PETSC_TRUE;
  }
  if (any) {
    /* the region's own moduli, the others at their defaults */
    in->setE      = set[0];
    in->setnu     = set[1];
    in->setmu     = set[2];
    in->setlambda = set[3];
    in->setkappa  = set[4];
    in->setc1     = set[5];
    in->setc2     = set[6];
    in->E         = val[0];
    in->nu        = val[1];
    in->mu        = val[2];
    in->lambda    = val[3];
    in->kappa     = val[4];
    in->c1        = val[5];
    in->c2        = val[6];
  }
  PetscFunctionReturn(0);
}

/* Two regions claim one cell: refused naming both and the cell (the smallest rank-independent number among such) */
static PetscErrorCode CheckOverlap(Solid *s, PetscInt r, const PetscInt mark[])
{
  MPI_Comm comm  = PetscObjectComm((PetscObject)s->dm);
  PetscInt first = PETSC_MAX_INT, other = -1;

  PetscFunctionBegin;
  for (PetscInt c = 0; c < s->ncells; c++)
    if (mark[c] && s->creg[c] && s->cellid[c] < first) first = s->cellid[c];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPIU_INT, MPI_MIN, comm));
  if (first == PETSC_MAX_INT) PetscFunctionReturn(0);
  for (PetscInt c = 0; c < s->ncells; c++)
    if (s->cellid[c] == first) other = s->creg[c];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &other, 1, MPIU_INT, MPI_MAX, comm));
  SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "-solid_region: the regions %s and %s overlap (cell %" PetscInt_FMT " is in both); a cell has one material", s->reg[other].name, s->reg[r].name, first);
}

/* What a restart must match of region r: its cells and a checksum of its material and selection */
static PetscErrorCode RecordRegion(MechSystem sys, const SolidRegion *r, const char text[])
{
  char     pname[128];
  uint64_t h = SOLID_HASH_SEED;

  PetscFunctionBegin;
  h = SolidHash(h, r->name, strlen(r->name) + 1);
  h = SolidHash(h, text, strlen(text) + 1);
  h = SolidHash(h, r->mat->name, strlen(r->mat->name) + 1);
  h = SolidHash(h, &r->mod, sizeof(r->mod));
  h = SolidHash(h, &r->rho, sizeof(r->rho));
  h = SolidHash(h, &r->alpha, sizeof(r->alpha));
  h = SolidHash(h, &r->beta, sizeof(r->beta));
  h = SolidHash(h, &r->ncells, sizeof(r->ncells));
  PetscCall(PetscSNPrintf(pname, sizeof(pname), "region_%s_cells", r->name));
  PetscCall(MechSystemAddParameter(sys, pname, (PetscReal)r->ncells));
  PetscCall(PetscSNPrintf(pname, sizeof(pname), "region_%s_checksum", r->name));
  PetscCall(MechSystemAddParameter(sys, pname, SOLID_HASH_PARAM(h)));
  PetscFunctionReturn(0);
}

/*
  The regions (-solid_region and -solid_region_NAME_*): s->reg[0], the global material, must be set;
  the named ones follow, each cell gets its region (s->creg), and the named regions are recorded in
  the system's parameters. what names the mesh in messages, hmin its smallest cell size. Collective.
*/
PetscErrorCode SolidSetUpRegions(Solid *s, MechSystem sys, const SolidMaterialInput *glob, const char what[], PetscReal hmin)
{
  MPI_Comm  comm       = PetscObjectComm((PetscObject)s->dm);
  char      list[1024] = "", **names = NULL;
  PetscBool set;
  PetscInt  n = 0, *mark;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(s->ncells + 1, &s->creg));
  PetscOptionsBegin(comm, NULL, "Material regions of the solid (SolidRegions)", "MechCreateSolid");
  PetscCall(MechOptionsString("-solid_region", "Material regions by name (comma-separated); each with -solid_region_NAME_label/_group/_where and its material options", "SolidRegions", list, list, sizeof(list), &set));
  PetscOptionsEnd();
  s->nstate = s->reg[0].mat->nstate;
  if (!set) PetscFunctionReturn(0);
  PetscCheck(list[0] != ',' && list[strlen(list) - 1] != ',' && !strstr(list, ",,"), comm, PETSC_ERR_ARG_WRONG, "-solid_region %s: a name in the list is empty", list);
  for (const char *p = list; *p; p++) n += *p == ',';
  n++;
  PetscCall(PetscCalloc1(n, &names));
  n = 0;
  for (char *p = list, *q; p; p = q ? q + 1 : NULL) {
    q = strchr(p, ',');
    if (q) *q = 0;
    for (char *c = p; *c; c++) PetscCheck(isalnum((unsigned char)*c) || *c == '_', comm, PETSC_ERR_ARG_WRONG, "-solid_region %s: a region's name has letters, digits and underscores only", p);
    PetscCheck(strlen(p) < sizeof(s->reg[0].name), comm, PETSC_ERR_ARG_WRONG, "-solid_region %s: a name has at most %d characters", p, (int)sizeof(s->reg[0].name) - 1);
    for (PetscInt k = 0; k < n; k++) PetscCheck(strcmp(names[k], p), comm, PETSC_ERR_ARG_WRONG, "-solid_region: the name %s is given twice", p);
    names[n++] = p;
  }
  PetscCall(PetscRealloc(sizeof(SolidRegion) * (n + 1), &s->reg));
  PetscCall(PetscMalloc1(s->ncells + 1, &mark));
  for (PetscInt k = 0; k < n; k++) {
    SolidRegion       *r = &s->reg[k + 1];
    SolidMaterialInput in;
    SolidSelection     sel;
    char               o[96];
    PetscInt           ngiven, count;

    s->nreg = k + 1;
    PetscCall(PetscMemzero(r, sizeof(*r)));
    PetscCall(PetscStrncpy(r->name, names[k], sizeof(r->name)));
    PetscCall(PetscSNPrintf(o, sizeof(o), "-solid_region_%s", r->name));
    PetscCall(SolidSelectionFromOptions(s, o, what, 1e-3 * hmin, &ngiven, &sel));
    PetscCheck(ngiven == 1, comm, PETSC_ERR_ARG_WRONG, "-solid_region %s: give its cells with one of %s_label (with %s_value), %s_group or %s_where%s", r->name, o, o, o, o, ngiven ? ", not several" : "");
    PetscCall(RegionInput(comm, o, glob, &s->reg[0], &in));
    PetscCall(SolidRegionFromInput(comm, o, &in, r));
    PetscCall(PetscArrayzero(mark, s->ncells));
    PetscCall(SolidSelectCells(s, &sel, mark, &count));
    PetscCheck(count, comm, PETSC_ERR_ARG_WRONG, "%s: selects no cell of %s; a region needs cells", sel.text, what);
    PetscCall(CheckOverlap(s, k + 1, mark));
    for (PetscInt c = 0; c < s->ncells; c++)
      if (mark[c]) s->creg[c] = k + 1;
    r->ncells = count;
    s->nstate = PetscMax(s->nstate, r->mat->nstate);
    PetscCall(RecordRegion(sys, r, sel.text));
    PetscCall(SolidSelectionDestroy(&sel));
    PetscCall(PetscInfo(s->dm, "region %s: %" PetscInt_FMT " cells of %s\n", r->name, count, r->mat->name));
  }
  s->nreg = n + 1;
  PetscCall(MechSystemAddParameter(sys, "regions", (PetscReal)n));
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree(names));
  PetscFunctionReturn(0);
}

/* Whether every region's material is linear (the system then is), whether any needs J > 0 (the
   state check), and whether every one's discrete stress is frame-invariant (not the linear one's) */
PetscErrorCode SolidRegionsFlags(const Solid *s, PetscBool *linear, PetscBool *positiveJ, PetscBool *frameinvariant)
{
  PetscFunctionBegin;
  *linear = PETSC_TRUE;
  if (positiveJ) *positiveJ = PETSC_FALSE;
  if (frameinvariant) *frameinvariant = PETSC_TRUE;
  for (PetscInt r = 0; r < s->nreg; r++) {
    if (!s->reg[r].mat->linear) *linear = PETSC_FALSE;
    if (positiveJ && s->reg[r].mat->positiveJ) *positiveJ = PETSC_TRUE;
    if (frameinvariant && s->reg[r].mat->linear) *frameinvariant = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SolidRegionsDestroy(Solid *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(s->reg));
  PetscCall(PetscFree(s->creg));
  PetscCall(MatDestroy(&s->Ma));
  s->nreg = 0;
  PetscFunctionReturn(0);
}

/*
  The Rayleigh damping of the regions, D = sum_r alpha_r M_r + beta_r K0_r (K0 the tangent at the
  reference). With one alpha for every region, D's mass part is alpha M (s->alpha = alpha, as
  without regions: the same bits); otherwise the mass of the weights rho_r alpha_r, s->Ma (alpha 1).
  Likewise K0 is the plain reference tangent times beta, or with the regions' betas in its cells
  (s->K0weighted, beta 1); J gives K0's pattern. lumped: as the mass.
*/
PetscErrorCode SolidSetUpDamping(Solid *s, PetscBool lumped)
{
  PetscBool samealpha = PETSC_TRUE, samebeta = PETSC_TRUE;

  PetscFunctionBegin;
  for (PetscInt r = 1; r < s->nreg; r++) {
    if (s->reg[r].alpha != s->reg[0].alpha) samealpha = PETSC_FALSE;
    if (s->reg[r].beta != s->reg[0].beta) samebeta = PETSC_FALSE;
  }
  /* a region's coefficients matter only where it has cells: region 0 may have none */
  s->alpha = samealpha ? s->reg[0].alpha : 1;
  s->beta  = samebeta ? s->reg[0].beta : 1;
  if (!samealpha) {
    PetscCall(SolidCreatePattern(s, PETSC_TRUE, &s->Ma));
    PetscCall(SolidAssembleMass(s, lumped, PETSC_TRUE, s->Ma));
  }
  s->K0weighted = samebeta ? PETSC_FALSE : PETSC_TRUE;
  if (s->beta != 0) {
    PetscCall(SolidCreatePattern(s, PETSC_FALSE, &s->K0));
    PetscCall(SolidAddElementTangents(s, 0, NULL, 1.0, s->K0));
  }
  PetscFunctionReturn(0);
}
