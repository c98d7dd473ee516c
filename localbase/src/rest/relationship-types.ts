// The shapes of the Data API's relationships (relationships.ts detects them, view-relationships.ts
// carries foreign keys over to views, the planner embeds through them).

export interface QualifiedName {
  schema: string;
  name: string;
}

export type ColumnPairs = [string, string][];

export interface Junction {
  table: QualifiedName;
  constraint1: string;
  constraint2: string;
  /** (origin column, junction column) pairs. */
  sourceColumns: ColumnPairs;
  /** (target column, junction column) pairs. */
  targetColumns: ColumnPairs;
}

/** Columns are (origin column, target column) pairs. */
export type Cardinality =
  | { kind: 'o2m'; constraint: string; columns: ColumnPairs }
  | { kind: 'm2o'; constraint: string; columns: ColumnPairs }
  | { kind: 'o2o'; constraint: string; columns: ColumnPairs; isParent: boolean }
  | { kind: 'm2m'; junction: Junction };

export interface ForeignKeyRelationship {
  kind: 'fk';
  table: QualifiedName;
  foreignTable: QualifiedName;
  isSelf: boolean;
  cardinality: Cardinality;
  tableIsView: boolean;
  foreignTableIsView: boolean;
}

export interface ComputedRelationship {
  kind: 'computed';
  function: QualifiedName;
  table: QualifiedName;
  foreignTable: QualifiedName;
  toOne: boolean;
  isSelf: boolean;
}

export type Relationship = ForeignKeyRelationship | ComputedRelationship;
