/** The packages the version matrix varies (docs/compatibility.md); the rest come from the repository. */
export const MATRIX_PACKAGES = [
  "@langchain/core",
  "@langchain/langgraph",
  "@langchain/langgraph-checkpoint",
  "langchain",
];
