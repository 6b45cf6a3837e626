/*
 * exit_code - checks that a wrapper passes arguments, stdin, stdout and the
 * exit status through.  Runs one target region, then prints to stdout:
 *   - each command-line argument after argv[0], one per line, verbatim;
 *   - a last line "stdin_lines=N", N being the number of lines read from
 *     stdin until EOF (a final line without '\n' counts too);
 * and returns 7.
 */
#include <stdio.h>

#define N 256

static int v[N];

int main(int argc, char **argv) {
#pragma omp target teams distribute parallel for map(tofrom : v)
  for (int i = 0; i < N; i++)
    v[i] = i;

  for (int i = 1; i < argc; i++)
    printf("%s\n", argv[i]);

  long lines = 0;
  int c, last = '\n';
  while ((c = getchar()) != EOF) {
    if (c == '\n')
      lines++;
    last = c;
  }
  if (last != '\n')
    lines++;
  printf("stdin_lines=%ld\n", lines);
  return v[N - 1] == N - 1 ? 7 : 1;
}
