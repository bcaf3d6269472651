// memctl: written by `memctl hooks install opencode`; `memctl hooks uninstall opencode` removes it.
// It runs memctl's hook adapter (memctl help agents, "Hooks, per runtime").
const hook = async ($, directory, event, sessionID, extra) => {
  const input = JSON.stringify({ session_id: sessionID ?? "", cwd: directory, hook_event_name: event, ...extra })
  try {
    return await $`memctl hook opencode ${event} < ${new Response(input)}`.cwd(directory).quiet().nothrow().text()
  } catch {
    return ""
  }
}

export const MemctlPlugin = async ({ $, directory }) => ({
  "experimental.session.compacting": async (input, output) => {
    await hook($, directory, "pre-compact", input.sessionID)
    const text = await hook($, directory, "session-start", input.sessionID)
    if (text.trim() !== "") output.context.push(text)
  },
  event: async ({ event }) => {
    if (event.type === "session.compacted") await hook($, directory, "post-compact", event.properties?.sessionID)
    if (event.type === "session.idle") await hook($, directory, "stop", event.properties?.sessionID)
  },
})
