// OpenBLAS's CBLAS interface plus the runtime controls PoseKit uses
// (thread count, and the name of the CPU core kernel set OpenBLAS picked).
#include <cblas.h>
