/*
 * The CUnit runner. Suites register themselves through the generated
 * tests_register_all() (one test_<module>.c per module). `build/run-tests SUITE…`
 * runs only the named suites; `--list` prints every suite's name, one a line, so that
 * tests/run-suites can run them as separate processes on all cores.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

void tests_register_all(void);

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    tests_register_all();
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
            printf("%s\n", s->pName);
        CU_cleanup_registry();
        return 0;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    unsigned failed;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            CU_pSuite s = CU_get_suite(argv[i]);
            if (!s) {
                fprintf(stderr, "no suite named %s\n", argv[i]);
                CU_cleanup_registry();
                return 2;
            }
            CU_basic_run_suite(s);
        }
    } else {
        CU_basic_run_tests();
    }
    failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
