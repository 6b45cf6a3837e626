// A C++ offload program for the tests of kernel names (tests/test_report.c):
// LLVM names its kernels after the mangled enclosing function,
// `__omp_offloading_<dev>_<file>_<_Z...>_l<line>`, which the converter
// demangles. One function has a very long name (a namespace, a template and
// a name of 200 characters) so that the report's sentences meet a kernel
// name longer than any fixed buffer they once had.
#include <cstdio>
#include <vector>

namespace lattice {
struct Site {
    double re[9], im[9];
};

template <typename T>
void scale_every_site_of_this_rather_long_named_lattice_field_so_that_the_report_meets_a_kernel_name_longer_than_any_fixed_buffer_it_had_and_has_to_print_it_whole_without_cutting_a_sentence_in_two_ok(
    std::vector<T> &field, double factor)
{
    T *p = field.data();
    size_t n = field.size();
#pragma omp target teams distribute parallel for map(tofrom : p[0 : n])
    for (size_t i = 0; i < n; i++)
        p[i].re[0] *= factor;
}

double norm(const std::vector<Site> &field)
{
    const Site *p = field.data();
    size_t n = field.size();
    double sum = 0;
#pragma omp target teams distribute parallel for map(to : p[0 : n]) reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += p[i].re[0];
    return sum;
}
} // namespace lattice

int main()
{
    std::vector<lattice::Site> field(256);
    for (auto &s : field)
        s.re[0] = 1.0;
    for (int k = 0; k < 4; k++)
        lattice::scale_every_site_of_this_rather_long_named_lattice_field_so_that_the_report_meets_a_kernel_name_longer_than_any_fixed_buffer_it_had_and_has_to_print_it_whole_without_cutting_a_sentence_in_two_ok(
            field, 2.0);
    std::printf("%g\n", lattice::norm(field));
    return 0;
}
