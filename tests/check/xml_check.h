/**
 * \file xml_check.h
 * \brief Test-side XML well-formedness check, enough for the SVG that
 *        `offtrace view` writes: one root element, balanced tags, quoted
 *        attributes without duplicates, no raw '<' in text or values, only
 *        well-formed character and entity references. No DTD, no namespaces
 *        semantics; the XML declaration and comments are allowed.
 */
#ifndef OT_TEST_XML_CHECK_H
#define OT_TEST_XML_CHECK_H

#include <stddef.h>

/**
 * \brief Check \p text (\p length bytes).
 * \return 0 when well-formed; else -1 with the byte offset of the first
 *         problem in \p error_at and what it is in \p why (both optional).
 */
int xml_check(const char *text, size_t length, size_t *error_at, const char **why);

#endif
