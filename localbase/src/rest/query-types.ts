// What a PostgREST request's URL says, as plain data: the select tree, filters and their operators,
// `or`/`and` logic trees, order terms, ranges, each possibly aimed at an embedded resource. The
// parser (parse.ts) fills these types and the planner (plan.ts) and the SQL builder (sql.ts) read
// them, as PostgREST keeps ApiRequest/Types.hs beside its parser. The operator lists are the words
// the grammar accepts; each operator type is taken from its list.

export type JsonOperand = { kind: 'key'; value: string } | { kind: 'index'; value: string };
export interface JsonStep {
  arrow: '->' | '->>';
  operand: JsonOperand;
}
export interface Field {
  name: string;
  jsonPath: JsonStep[];
}

export type JoinType = 'inner' | 'left';
export type AggregateName = 'count' | 'sum' | 'avg' | 'max' | 'min';

export interface SelectField {
  kind: 'field';
  field: Field;
  cast: string | undefined;
  alias: string | undefined;
  aggregate: AggregateName | undefined;
  aggregateCast: string | undefined;
}
export interface SelectRelation {
  kind: 'relation' | 'spread';
  name: string;
  alias: string | undefined;
  hint: string | undefined;
  joinType: JoinType | undefined;
  children: SelectItem[];
}
export type SelectItem = SelectField | SelectRelation;

export const SIMPLE_OPERATORS = ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'] as const;
export const QUANTIFIABLE_OPERATORS = ['eq', 'gte', 'gt', 'lte', 'lt', 'like', 'ilike', 'match', 'imatch'] as const;
export const FTS_OPERATORS = ['fts', 'plfts', 'phfts', 'wfts'] as const;
export const IS_VALUES = ['null', 'not_null', 'true', 'false', 'unknown'] as const;
export type SimpleOperator = (typeof SIMPLE_OPERATORS)[number];
export type QuantifiableOperator = (typeof QUANTIFIABLE_OPERATORS)[number];
export type FtsOperator = (typeof FTS_OPERATORS)[number];
export type IsValue = (typeof IS_VALUES)[number];

export type Operation =
  | { kind: 'simple'; operator: SimpleOperator; value: string }
  | { kind: 'quantified'; operator: QuantifiableOperator; quantifier: 'any' | 'all' | undefined; value: string }
  | { kind: 'in'; values: string[] }
  | { kind: 'is'; value: IsValue }
  | { kind: 'isdistinct'; value: string }
  | { kind: 'fts'; operator: FtsOperator; language: string | undefined; value: string };

export interface OpExpr {
  negate: boolean;
  operation: Operation;
}
export interface Filter {
  field: Field;
  expr: OpExpr;
}
export type LogicTree =
  | { kind: 'filter'; filter: Filter }
  | { kind: 'logic'; negate: boolean; operator: 'and' | 'or'; children: LogicTree[] };

export type OrderDirection = 'asc' | 'desc';
export type OrderNulls = 'nullsfirst' | 'nullslast';
export type OrderTerm =
  | { kind: 'field'; field: Field; direction: OrderDirection | undefined; nulls: OrderNulls | undefined }
  | {
      kind: 'relation';
      relation: string;
      field: Field;
      direction: OrderDirection | undefined;
      nulls: OrderNulls | undefined;
    };

/** A path of embedded resource names (or aliases) a parameter is aimed at; [] is the top level. */
export type EmbedPath = string[];

export interface RangeParam {
  /** As given; PostgreSQL refuses a negative one. */
  offset: number;
  /** undefined: no limit (also for a value that is not an integer, as PostgREST ignores it). */
  limit: number | undefined;
}

export interface QueryParams {
  select: SelectItem[];
  filters: { path: EmbedPath; filter: Filter }[];
  /** RPC GET only: parameters whose value is not an operator expression are arguments. */
  rpcArguments: [string, string][];
  logic: { path: EmbedPath; tree: LogicTree }[];
  order: { path: EmbedPath; terms: OrderTerm[] }[];
  /** Keyed by the embed path joined with '.' ('' for the top level). */
  ranges: Map<string, RangeParam>;
  columns: string[] | undefined;
  onConflict: string[] | undefined;
  /** The names filters are applied to (PUT checks them against the primary key). */
  filterFields: Set<string>;
}
