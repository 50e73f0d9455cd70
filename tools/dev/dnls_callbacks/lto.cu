/* LTO-IR of the store callbacks, for cufftXtSetJITCallback (bench.cu); run.sh compiles
 * it with -rdc -fatbin code=lto_90. */
#include "callbacks.cuh"
CB_DEFINE(lto_, unsigned long long)
