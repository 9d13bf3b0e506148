/**
 * `langchain-studio/agents`: assistants run as LangChain agents. This subpath is the only one that
 * loads the optional peer `langchain`, so apps that never run an assistant never resolve it.
 */
export {};
