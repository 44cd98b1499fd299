/*
 * agent_prompts.h - the system prompts of the agents, as templates for
 * fs_tools_system_prompt (agent_tools.h): {tools} is the tool list, every
 * other {name} a key of the run's context.
 *
 * Editing agent (seed 000): plateau_threshold, image_name, image_width,
 * image_height, shot_width, shot_height, calibration,
 * initial_tubercle_count, initial_hexagonalness, initial_coverage,
 * max_iterations.
 * Optimiser (seed 001 §5.1): target_score, max_iterations,
 * plateau_iterations, param_table, profiles, image_name, image_width,
 * image_height, calibration.
 * Chat (seed 002): image_name, image_width, image_height, max_tool_calls,
 * set_text.
 *
 * The strings are static; fs_agent_param_table returns a malloc'd string.
 */
#ifndef FS_AGENT_PROMPTS_H
#define FS_AGENT_PROMPTS_H

extern const char fs_prompt_edit[];
extern const char fs_prompt_optimize[];
extern const char fs_prompt_chat[];

/* The parameter table (name, range, help) and the profile list, for the
 * optimiser's prompt; caller frees. NULL on out of memory. */
char *fs_agent_param_table(void);
char *fs_agent_profile_list(void);

#endif
