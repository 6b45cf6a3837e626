/**
 * \file json_walk.h
 * \brief Test-side: walk the JSON offtrace itself writes (`report --json`,
 *        export): find an object's member, an array's element, without a
 *        parser or a tree. Check the syntax first with json_check.h; these
 *        assume well-formed input and return NULL where something is missing.
 */
#ifndef OT_TEST_JSON_WALK_H
#define OT_TEST_JSON_WALK_H

#include <stddef.h>

/** \brief Past the JSON value at \p p (string, number, literal, object or array). */
const char *json_skip_value(const char *p);

/** \brief The value of \p key among the members of the object at \p obj (not of nested ones);
 *         NULL when \p obj is not an object or has no such member. */
const char *json_member(const char *obj, const char *key);

/** \brief The \p i-th element of the array member \p key of \p obj; NULL when there is no such
 *         array or it is shorter. */
const char *json_element(const char *obj, const char *key, size_t i);

/** \brief The number of elements of the array member \p key of \p obj (0 without one). */
size_t json_length(const char *obj, const char *key);

/** \brief Whether the string member \p key of \p obj equals \p want. */
int json_string_is(const char *obj, const char *key, const char *want);

#endif
