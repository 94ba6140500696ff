package dev.troupe.spring.autoconfigure;

import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.springframework.beans.factory.BeanDefinitionStoreException;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;

/**
 * The scan the {@code @TroupeActor} and {@code @TroupeEntity} registrars share: the {@code @Bean}
 * methods carrying one annotation among a registry's bean definitions, with the checks that make
 * misuse fail while the definitions are read (the annotation on a method that is not a
 * {@code @Bean} method, a declaring class or method that cannot be found). Runs once at startup.
 */
final class AnnotatedBeanMethods {

    /** What a registrar does with one annotated {@code @Bean} method. */
    @FunctionalInterface
    interface Visitor {
        void visit(String beanName, BeanDefinition definition, MethodMetadata factoryMethod);
    }

    private AnnotatedBeanMethods() {
    }

    /**
     * @param registry the registry being post-processed
     * @return the bean factory's class loader, or the default one
     */
    static ClassLoader classLoader(BeanDefinitionRegistry registry) {
        return registry instanceof ConfigurableListableBeanFactory cbf && cbf.getBeanClassLoader() != null
            ? cbf.getBeanClassLoader() : ClassUtils.getDefaultClassLoader();
    }

    /**
     * Visits, in the registry's order, every bean definition whose {@code @Bean} method carries
     * {@code annotation}. Each class registered as a bean (a definition without a factory method)
     * is checked first, once, for the annotation on a method that is not a {@code @Bean} method,
     * which would otherwise be ignored silently. The visitor may register definitions: the
     * names are read before the first visit.
     *
     * @param registry the registry
     * @param annotation {@code TroupeActor} or {@code TroupeEntity}
     * @param ignoredWithout what is not done for a method without {@code @Bean}, for the failure's description
     * @param beanMethodNote said after "Annotate ... with @Bean as well" in the failure's action, or empty
     * @param visitor called for each annotated {@code @Bean} method
     */
    /**
     * @param annotation the annotation on the method
     * @param factoryMethod the {@code @Bean} method
     * @return where a bean the starter derives from the method comes from, for Boot's reports:
     *         {@code @TroupeActor method Actors.greeter}
     */
    static String origin(Class<? extends Annotation> annotation, MethodMetadata factoryMethod) {
        return "@" + annotation.getSimpleName() + " method " + org.springframework.util.ClassUtils.getShortName(factoryMethod.getDeclaringClassName())
            + "." + factoryMethod.getMethodName();
    }

    static void scan(BeanDefinitionRegistry registry, Class<? extends Annotation> annotation, String ignoredWithout,
                     String beanMethodNote, Visitor visitor) {
        final String annotationName = annotation.getName();
        final Set<String> checkedClasses = new HashSet<>();
        for (String beanName : registry.getBeanDefinitionNames()) {
            final BeanDefinition definition = registry.getBeanDefinition(beanName);
            if (!(definition instanceof AnnotatedBeanDefinition annotated)) {
                continue;
            }
            final MethodMetadata factoryMethod = annotated.getFactoryMethodMetadata();
            if (factoryMethod == null && checkedClasses.add(annotated.getMetadata().getClassName())) {
                rejectWithoutBean(annotated.getMetadata(), annotation, ignoredWithout, beanMethodNote);
            }
            if (factoryMethod == null || !factoryMethod.isAnnotated(annotationName)) {
                continue;
            }
            visitor.visit(beanName, definition, factoryMethod);
        }
    }

    /** An annotated method that is not a {@code @Bean} method would be silently ignored. */
    private static void rejectWithoutBean(AnnotationMetadata metadata, Class<? extends Annotation> annotation, String ignoredWithout,
                                          String beanMethodNote) {
        final String at = "@" + annotation.getSimpleName();
        for (MethodMetadata m : metadata.getAnnotatedMethods(annotation.getName())) {
            if (!m.isAnnotated(Bean.class.getName())) {
                final String method = ClassUtils.getShortName(m.getDeclaringClassName()) + "." + m.getMethodName() + "()";
                throw new TroupeConfigurationException(
                    at + " is on " + method + ", which is not a @Bean method: " + ignoredWithout + ".",
                    "Annotate " + method + " with @Bean as well" + beanMethodNote + ", or remove " + at + ".");
            }
        }
    }

    /**
     * @param annotation the annotation the method carries
     * @param beanName the bean the method makes
     * @param definition its definition
     * @param factoryMethod its factory method
     * @param classLoader the class loader of the declaring class
     * @return the method (not a bridge or synthetic one) of the bean's user class
     * @throws BeanDefinitionStoreException if the class or the method cannot be found
     */
    static Method findMethod(Class<? extends Annotation> annotation, String beanName, BeanDefinition definition,
                             MethodMetadata factoryMethod, ClassLoader classLoader) {
        final String at = "@" + annotation.getSimpleName();
        final Class<?> declaring;
        try {
            declaring = ClassUtils.forName(factoryMethod.getDeclaringClassName(), classLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new BeanDefinitionStoreException(definition.getResourceDescription(), beanName,
                "cannot load the class declaring " + at + " bean '" + beanName + "'", e);
        }
        for (Method m : ClassUtils.getUserClass(declaring).getDeclaredMethods()) {
            if (m.getName().equals(factoryMethod.getMethodName()) && !m.isSynthetic() && !m.isBridge()
                && m.isAnnotationPresent(annotation)) {
                return m;
            }
        }
        throw new BeanDefinitionStoreException(definition.getResourceDescription(), beanName,
            "cannot find the " + at + " method " + factoryMethod.getMethodName() + " of bean '" + beanName + "'");
    }

    /**
     * @param m a method
     * @return {@code DeclaringClass.method()}, for failure messages
     */
    static String describe(Method m) {
        return m.getDeclaringClass().getSimpleName() + "." + m.getName() + "()";
    }
}
