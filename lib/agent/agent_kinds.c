/*
 * agent_kinds.c - registers the built-in kinds of agent job (optimiser,
 * editor, chat) into the runner's table (agent_jobs.h).
 */
#include "agent/agent_fish_tools.h"
#include "agent/agent_jobs.h"

void fs_agent_kinds_register_all(void)
{
	fs_agent_kind_register(&fs_agent_kind_optimize);
	fs_agent_kind_register(&fs_agent_kind_edit);
	fs_agent_kind_register(&fs_agent_kind_chat);
}
