// swagger-ui-react ships no types and @types/swagger-ui-react is not a dependency: declare the
// props this page uses.
declare module 'swagger-ui-react' {
  import type { ComponentType } from 'react';
  export interface SwaggerUIProps {
    url?: string;
    spec?: object;
    supportedSubmitMethods?: string[];
    tryItOutEnabled?: boolean;
    docExpansion?: 'list' | 'full' | 'none';
    defaultModelsExpandDepth?: number;
    plugins?: Array<() => { components?: Record<string, ComponentType<any>> }>;
  }
  const SwaggerUI: ComponentType<SwaggerUIProps>;
  export default SwaggerUI;
}
