/*
  The solid's materials, registered: each record (SolidMaterialOps) is defined with its functions,
  the five of materials.c there and each further material in a file of its own (yeoh.c); a new
  material is its file and its line here. Materials are chosen and stored (output, checkpoints) by
  name, never by their place here.
*/
#include "solidimpl.h"
#include <string.h>

static const SolidMaterialOps *const SolidMaterialTable[] = {
    &SolidMaterialsBuiltin[0], /* linear */
    &SolidMaterialsBuiltin[1], /* svk */
    &SolidMaterialsBuiltin[2], /* neohookean */
    &SolidMaterialsBuiltin[3], /* neohookean_split */
    &SolidMaterialsBuiltin[4], /* mooney_rivlin */
    &SolidMaterialYeoh,        /* yeoh.c */
};

/* The material of that name, or NULL */
const SolidMaterialOps *SolidMaterialFind(const char name[])
{
  for (size_t i = 0; i < sizeof(SolidMaterialTable) / sizeof(SolidMaterialTable[0]); i++)
    if (!strcmp(SolidMaterialTable[i]->name, name)) return SolidMaterialTable[i];
  return NULL;
}

/* The names of the materials, comma-separated, for messages and -help */
void SolidMaterialNames(char names[], size_t len)
{
  names[0] = 0;
  for (size_t i = 0; i < sizeof(SolidMaterialTable) / sizeof(SolidMaterialTable[0]); i++) {
    if (i) (void)PetscStrlcat(names, ", ", len);
    (void)PetscStrlcat(names, SolidMaterialTable[i]->name, len);
  }
}
