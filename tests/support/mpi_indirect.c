/* A program that gets libmpi only through another library (libmpi_counter.so,
 * found through its $ORIGIN RUNPATH): an MPI program for record's preload
 * rule all the same (tests/test_needed.c). It calls nothing of MPI. */
int main(void)
{
    return 0;
}
