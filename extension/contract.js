// The names of the messages between the JS glue and the Rust core (src/messages.rs), defined
// once. A classic script on purpose: content scripts listed together share one global scope,
// the options page loads it with a <script> tag, and the background imports it for its side
// effect. tests/contract.rs reads this file and checks every name against the Rust enums.
// Assigned only once: a page can get the content scripts twice (a built-in site the user
// also added as a custom site).
globalThis.MCP_BRIDGE ??= Object.freeze({
  // What a content script says (`TabRequest`).
  tab: Object.freeze({
    PING: 'ping',
    PAGE_READY: 'page-ready',
    EMPTY_CHAT: 'empty-chat',
    MESSAGE_UPDATED: 'message-updated',
    USER_MESSAGE: 'user-message',
    USER_ACTION: 'user-action',
    DETECT: 'detect',
    VIEW: 'view',
  }),
  // What an MCP App view's host page relays, inside a `view` message (`ViewAsk`).
  viewAsk: Object.freeze({
    OPEN: 'open',
    CALL: 'call',
    MESSAGE: 'message',
    LINK: 'link',
    FAILED: 'failed',
  }),
  // The float's buttons, inside a `user-action` message (`UserAction`).
  action: Object.freeze({
    INSERT_INSTRUCTIONS: 'insert-instructions',
    REDETECT: 'redetect',
    MANUAL_INPUT: 'manual-input',
    CANCEL: 'cancel',
    CONFIRM: 'confirm',
    HELD: 'held',
    OPEN_DETAILS: 'open-details',
    RESET_TOOL: 'reset-tool',
    ASK_NEXT_TIME: 'ask-next-time',
    ANSWER: 'answer',
    PICKED: 'picked',
    MENU: 'menu',
    COMPLETE: 'complete',
    USE_ITEM: 'use-item',
  }),
  // What the core tells a content script (`Command`).
  command: Object.freeze({
    TYPE_TEXT: 'type-text',
    APPEND_TEXT: 'append-text',
    SUBMIT: 'submit',
    ATTACH_FILE: 'attach-file',
    FLOAT_STATE: 'float-state',
    SHOW_VIEW: 'show-view',
  }),
  // What the core answers (`Response`).
  response: Object.freeze({
    PONG: 'pong',
    PAGE_SETUP: 'page-setup',
    DETECTED: 'detected',
    ACK: 'ack',
    MENU: 'menu',
    COMPLETIONS: 'completions',
    DATA: 'data',
    ERROR: 'error',
  }),
  // What the toolbar popup asks the chat tab's content script (glue to glue; the core is not
  // involved: the content script sends its own `user-action insert-instructions`).
  popup: Object.freeze({
    INSERT_INSTRUCTIONS: 'insert-instructions',
    GET_PAGE_HEALTH: 'get-page-health',
    PICK_PARTS: 'pick-parts',
  }),
  // What the options page asks (`PageRequest`).
  page: Object.freeze({
    GET_STATUS: 'get-status',
    GET_SETTINGS: 'get-settings',
    SAVE_SETTINGS: 'save-settings',
    TEST_CONNECTION: 'test-connection',
    SAVE_CONNECTION: 'save-connection',
    RESET_HISTORY: 'reset-history',
    GET_HISTORY: 'get-history',
    GET_CALL_LOG: 'get-call-log',
    GET_TOOLS: 'get-tools',
    SET_TOOL_POLICY: 'set-tool-policy',
    SET_TOOL_UNMASKED: 'set-tool-unmasked',
    SET_TOOL_EXEMPT: 'set-tool-exempt',
    SET_SERVER_TRUSTED: 'set-server-trusted',
    GET_ERROR_LOG: 'get-error-log',
    EXPORT_ERROR_LOG: 'export-error-log',
    CLEAR_ERROR_LOG: 'clear-error-log',
    CHECK_CUSTOM_SITE: 'check-custom-site',
    SAVE_CUSTOM_SITE: 'save-custom-site',
    REMOVE_CUSTOM_SITE: 'remove-custom-site',
    LIST_SITES: 'list-sites',
    ENABLE_SITE: 'enable-site',
    SITE_STATE: 'site-state',
    EXPORT_CUSTOM_SITES: 'export-custom-sites',
    IMPORT_CUSTOM_SITES: 'import-custom-sites',
    GET_SITE_LIST: 'get-site-list',
    SUBSCRIBE_SITE_LIST: 'subscribe-site-list',
    CHECK_SITE_LIST: 'check-site-list',
    UNSUBSCRIBE_SITE_LIST: 'unsubscribe-site-list',
    LIST_SERVERS: 'list-servers',
    REVEAL_SERVER: 'reveal-server',
    CHECK_SERVER: 'check-server',
    SERVER_TEMPLATE: 'server-template',
    SAVE_SERVER: 'save-server',
    RESTART_SERVER: 'restart-server',
    SET_SERVER_ENABLED: 'set-server-enabled',
    REMOVE_SERVER: 'remove-server',
    SIGN_IN_SERVER: 'sign-in-server',
    SIGN_OUT_SERVER: 'sign-out-server',
    IMPORT_SERVERS: 'import-servers',
  }),
});
