// A component loaded on first render, outside the router (which handles its own lazy screens):
// shows `fallback` until the module arrived.
import type { ComponentChildren, ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function Lazy<P extends object>({
  load,
  props,
  fallback = null,
}: {
  load: () => Promise<{ default: ComponentType<P> }>;
  props: P;
  fallback?: ComponentChildren;
}) {
  const [component, setComponent] = useState<ComponentType<P> | null>(null);
  useEffect(() => {
    let current = true;
    void load().then((module) => {
      if (current) setComponent(() => module.default);
    });
    return () => {
      current = false;
    };
  }, [load]);
  const Loaded = component;
  return Loaded ? <Loaded {...props} /> : <>{fallback}</>;
}
