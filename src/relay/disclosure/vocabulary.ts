import { terms } from './text.js';

/**
 * What closes the vocabulary gap between a task in a user's words and a tool's description: groups of words and
 * phrases that mean the same thing for choosing a tool. A text (a tool's or a query) that holds any phrase of a
 * group is tagged with the group's concept, and tags match tags; the words themselves still match as words. Kept to
 * the vocabulary of the tools people put behind a gateway (code hosting, issues, CI, error tracking, chat, notes,
 * files, memory, browsers); a group is added when a task in plain words misses its tool, never for one query.
 */
const GROUPS: readonly string[][] = [
  ['pull request', 'pr', 'prs', 'merge request', 'mr'],
  ['issue', 'ticket', 'bug report', 'bug'],
  ['dialog', 'popup', 'pop up', 'modal', 'alert box', 'confirm box', 'are you sure', 'beforeunload'],
  ['screenshot', 'snap picture', 'take picture', 'picture page', 'screen capture', 'capture screen', 'screen grab'],
  [
    'secret scanning',
    'leaked key',
    'leaked secret',
    'leaked token',
    'exposed credential',
    'leaked credential',
    'secret leak',
  ],
  ['dependabot', 'vulnerable dependency', 'vulnerable package', 'dependency vulnerability', 'outdated dependency'],
  ['code scanning', 'static analysis', 'codeql', 'sast'],
  ['security advisory', 'cve', 'ghsa', 'vulnerability advisory', 'advisory'],
  ['navigate', 'go', 'visit', 'open url', 'browse to', 'load url'],
  ['click', 'press button', 'tap button', 'hit button'],
  ['directory', 'folder', 'dir'],
  ['delete', 'remove', 'erase', 'forget'],
  ['create', 'make', 'new', 'open new', 'file bug', 'set up', 'start new'],
  ['search', 'find', 'look up', 'lookup', 'grep', 'locate'],
  ['rename', 'move'],
  ['comment', 'reply', 'remark', 'respond', 'answer'],
  ['message', 'chat', 'dm'],
  ['reaction', 'react', 'emoji', 'thumbs up'],
  ['job log', 'ci output', 'build output', 'job output', 'build log', 'workflow log', 'ci fail', 'build fail'],
  ['workflow', 'github action', 'ci', 'pipeline'],
  ['rerun', 're run', 'retrigger', 'trigger', 'run again'],
  ['release', 'publish version', 'new version', 'newest version', 'release note'],
  ['notification', 'inbox', 'unread'],
  ['authenticated user', 'who am i', 'logged in as', 'current user', 'whoami', 'get me'],
  ['stack trace', 'stacktrace', 'traceback', 'backtrace'],
  ['root cause', 'seer', 'why it fail', 'ai analysis', 'fix suggestion'],
  ['crash', 'exception', 'error', 'fail in production'],
  ['dsn', 'client key', 'sdk key', 'configure sdk'],
  ['uptime', 'stay up', 'downtime', 'site down', 'website up', 'website down'],
  ['cron', 'check in', 'scheduled job', 'cron monitor', 'cron job'],
  ['breadcrumb', 'before crash', 'click before', 'user action before'],
  ['distributed trace', 'span', 'slow request', 'request trace'],
  ['alert rule', 'alerting rule'],
  ['regression', 'deploy', 'introduced'],
  ['knowledge graph', 'remember', 'memory', 'fact', 'recall'],
  ['observation', 'fact', 'remember', 'forget'],
  ['entity', 'person', 'people'],
  ['relation', 'link', 'relationship', 'colleague', 'connect'],
  ['pdf', 'print page', 'save as pdf'],
  ['console message', 'javascript error', 'js error', 'browser log', 'console log', 'console error'],
  ['network request', 'api call', 'xhr', 'fetch call', 'http request', 'request made'],
  [
    'performance trace',
    'slow load',
    'page slow',
    'load time',
    'record profile',
    'performance profile',
    'page performance',
  ],
  ['lighthouse', 'audit', 'seo', 'best practice', 'accessibility audit'],
  ['evaluate', 'run javascript', 'execute javascript', 'run js', 'run script', 'execute script'],
  ['tab', 'page browser', 'browser tab', 'switch tab', 'other tab'],
  ['resize', 'viewport', 'window size', 'screen size', 'iphone', 'mobile', 'device'],
  ['emulate', 'throttle', 'slow 3g', 'slow network', 'offline', 'geolocation', 'cpu throttling', 'simulate'],
  ['key', 'keyboard', 'keystroke', 'escape', 'enter key', 'hotkey', 'shortcut'],
  ['upload', 'attach file', 'attach document', 'file input', 'file chooser'],
  ['wait', 'until', 'disappear', 'appear'],
  ['drag', 'drop', 'drag drop'],
  ['select option', 'dropdown', 'drop down', 'combobox', 'pick option', 'choose option'],
  ['accessibility tree', 'a11y tree', 'page structure', 'page snapshot', 'dom tree', 'snapshot'],
  ['navigate back', 'go back', 'previous page', 'history back'],
  ['heap', 'memory leak', 'heap snapshot', 'memory usage'],
  ['screencast', 'video', 'record screen', 'screen record', 'record session'],
  ['css', 'style', 'computed style', 'stylesheet'],
  ['sum', 'add number', 'addition', 'plus', 'total'],
  ['echo', 'repeat back', 'say back', 'parrot'],
  ['gzip', 'compress', 'zip', 'archive'],
  ['artifact', 'stored payload', 'offloaded', 'stored result', 'payload'],
  ['gist', 'snippet', 'paste'],
  ['star', 'favorite', 'bookmark'],
  ['blame', 'who changed', 'last changed', 'changed each line', 'line history', 'annotate'],
  ['commit', 'history of commit', 'commit history', 'commit log', 'changeset'],
  ['collaborator', 'push access', 'write access', 'contributor', 'maintainer', 'member repo'],
  ['sub issue', 'subtask', 'child task', 'child issue', 'break into', 'sub task'],
  ['copilot', 'coding agent', 'ai agent', 'work on issue'],
  ['project', 'project board', 'kanban', 'roadmap', 'board'],
  ['discussion', 'forum', 'q a'],
  ['page', 'wiki', 'document', 'doc'],
  ['data source', 'database', 'table', 'row', 'filter row'],
  ['markdown', 'md', 'export'],
  ['block', 'paragraph', 'append', 'heading', 'bullet'],
  ['file info', 'metadata', 'size', 'modified', 'modification time', 'timestamp', 'stat', 'how big'],
  ['directory tree', 'recursive', 'folder structure', 'hierarchy', 'recursively'],
  ['media', 'image', 'png', 'jpg', 'jpeg', 'photo', 'audio', 'picture file'],
  ['allowed directory', 'allowed to access', 'permitted directory'],
  ['channel history', 'recent message', 'catch up', 'recent chat', 'conversation history'],
  ['user', 'member', 'people', 'who is in', 'everyone'],
  ['profile', 'job title', 'timezone', 'bio', 'display name'],
  ['state', 'close', 'reopen', 'completed', 'not planned'],
  ['label', 'labels', 'tag issue'],
  ['assign', 'assignee', 'teammate', 'owner'],
  ['update branch', 'rebase', 'sync with base', 'latest base', 'behind base'],
  ['draft', 'ready for review', 'wip', 'work in progress'],
  ['review', 'approve', 'request change', 'reviewer'],
  ['review comment', 'inline comment', 'line comment', 'diff comment', 'comment on line'],
  ['diff', 'changes', 'patch', 'changed file'],
  ['push', 'commit file', 'push file'],
  ['branch'],
  ['file content', 'readme', 'source file', 'file from repo'],
  ['text file', 'read file', 'show content', 'content of file', 'cat file'],
  ['write file', 'save file', 'save text', 'to disk', 'save to file'],
  ['edit file', 'replace line', 'change line', 'modify file', 'patch file'],
  ['team', 'squad', 'group'],
  ['fork', 'copy repo', 'my account'],
  ['repository', 'repo', 'project'],
];

/** Each group's phrases as terms, the concept tag a text holding one gets, the longest phrases first. */
const PHRASES: { terms: string[]; tag: string }[] = GROUPS.flatMap((group) => {
  const tag = `_${terms(group[0]!).join('_')}`;
  return group.map((phrase) => ({ terms: terms(phrase), words: phrase.split(' ').length, tag }));
})
  // A phrase that stop words leave one word of ("logged in as") would stand for every text with that word.
  .filter((p) => p.terms.length > 0 && (p.words === 1 || p.terms.length > 1))
  .sort((a, b) => b.terms.length - a.terms.length);

/** The concept tags of a text's terms: one per group any of whose phrases it holds (as consecutive terms). */
export function concepts(textTerms: readonly string[]): string[] {
  return tagged(textTerms).tags;
}

/**
 * A task's terms as the search looks them up: its concept tags, and its words but those a phrase of several words
 * stood for ("file a bug" is about creating an issue, not about files; "client key" about a DSN, not keys).
 */
export function tagged(textTerms: readonly string[]): { tags: string[]; words: string[] } {
  const tags = new Set<string>();
  const used = new Set<number>();
  const present = new Set(textTerms);
  for (const phrase of PHRASES) {
    if (!phrase.terms.every((t) => present.has(t))) continue; // most phrases: a set lookup, no scan
    // A word a longer phrase stood for is not read again on its own ("record a profile" is no user's profile).
    const at = indexOf(textTerms, phrase.terms, phrase.terms.length > 1 ? NONE : used);
    if (at === -1) continue;
    tags.add(phrase.tag);
    if (phrase.terms.length > 1) for (let j = 0; j < phrase.terms.length; j++) used.add(at + j);
  }
  return { tags: [...tags], words: textTerms.filter((_, i) => !used.has(i)) };
}

const NONE: ReadonlySet<number> = new Set();

function indexOf(haystack: readonly string[], needle: readonly string[], used: ReadonlySet<number>): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j] || used.has(i + j)) continue outer;
    return i;
  }
  return -1;
}
