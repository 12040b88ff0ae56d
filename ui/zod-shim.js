// The zod the app bundles: zod v4's own functions, with `z` a plain object
// of the members @modelcontextprotocol/ext-apps calls (it imports `{ z }`;
// the browser tests fail if one is missing),
// so that the bundler can leave out what nobody calls (locales, JSON Schema
// conversion). Modules that `import * as z from "zod/v4"` get every named
// export, as from zod itself. build.mjs points "zod/v4" here.
import {
  any, array, boolean, config, discriminatedUnion, enum as enum_, intersection, lazy, literal, looseObject, never, null as null_,
  number, object, optional, record, strictObject, string, undefined as undefined_, union, unknown,
} from "zod-external";
export * from "zod-external";
export const z = {
  any, array, boolean, config, discriminatedUnion, enum: enum_, intersection, lazy, literal, looseObject, never, null: null_,
  number, object, optional, record, strictObject, string, undefined: undefined_, union, unknown,
};
export default z;
