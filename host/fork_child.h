/**
 * \file fork_child.h
 * \brief A child forked by the traced program records nothing and converts
 *        nothing: it shares the parent's record files (shared mappings) and
 *        would otherwise write into them and run the parent's exit path.
 */
#ifndef OT_HOST_FORK_CHILD_H
#define OT_HOST_FORK_CHILD_H

/** \brief Install the fork handler (once, at ompt_start_tool). */
void ot_fork_child_install(void);

#endif /* OT_HOST_FORK_CHILD_H */
